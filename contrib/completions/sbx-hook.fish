# fish completion for sbx-hook.
complete -c sbx-hook -f -a 'pre post session-start codex cursor'
complete -c sbx-hook -l help -l version
