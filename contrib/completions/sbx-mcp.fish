# fish completion for sbx-mcp.
complete -c sbx-mcp -f -l folder -r -a '(__fish_complete_directories)' -d 'project folder'
complete -c sbx-mcp -l help
