# fish completion for sbxd.
complete -c sbxd -s c -l config -r -a '(__fish_complete_directories)' -d 'config dir'
complete -c sbxd -l pass-env -r -a '(set -n)' -d 'also pass this variable'
complete -c sbxd -l originals-cap -r -d 'bytes of kept originals per folder'
complete -c sbxd -l audit-segment-bytes -r -d 'rotate the audit log above'
complete -c sbxd -l all -d 'serve every recorded folder'
complete -c sbxd -s v -l verbose -d 'log inotify events'
complete -c sbxd -l help -l version
complete -c sbxd -a '(__fish_complete_directories)'
