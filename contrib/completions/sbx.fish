# fish completion for sbx (make install also installs sbxd, sbx-hook and
# sbx-mcp completions from this file's siblings).
set -l cmds init remove handover doctor watch pending show approve deny rules policy approvers audit history restore ssh-command

function __sbx_pending_ids
    sbx pending --json 2>/dev/null | string match -r -g '"id"\s*:\s*"([0-9a-f]{16})"'
end

complete -c sbx -f
complete -c sbx -s C -r -a '(__fish_complete_directories)' -d 'project folder'
complete -c sbx -l help -d 'print the usage'
complete -c sbx -l version -d 'print the version'
complete -c sbx -n "not __fish_seen_subcommand_from $cmds" -a init -d 'prepare a folder, register hooks'
complete -c sbx -n "not __fish_seen_subcommand_from $cmds" -a remove -d 'take out what init added'
complete -c sbx -n "not __fish_seen_subcommand_from $cmds" -a handover -d '(root) give .sandbox to the user sbxd runs as'
complete -c sbx -n '__fish_seen_subcommand_from handover' -l daemon-user -x -a '(__fish_complete_users)'
complete -c sbx -n '__fish_seen_subcommand_from handover' -l daemon-config -l agent-config -x -a '(__fish_complete_directories)'
complete -c sbx -n '__fish_seen_subcommand_from handover' -l undo -d 'give the folder back to its owner alone'
complete -c sbx -n "not __fish_seen_subcommand_from $cmds" -a doctor -d 'check the setup'
complete -c sbx -n "not __fish_seen_subcommand_from $cmds" -a watch -d 'the approver terminal'
complete -c sbx -n "not __fish_seen_subcommand_from $cmds" -a pending -d 'requests waiting'
complete -c sbx -n "not __fish_seen_subcommand_from $cmds" -a show -d 'one request'
complete -c sbx -n "not __fish_seen_subcommand_from $cmds" -a approve -d 'sign an approval'
complete -c sbx -n "not __fish_seen_subcommand_from $cmds" -a deny -d 'sign a denial'
complete -c sbx -n "not __fish_seen_subcommand_from $cmds" -a rules -d 'remembered approvals'
complete -c sbx -n "not __fish_seen_subcommand_from $cmds" -a policy -d 'accept, edit, check, show'
complete -c sbx -n "not __fish_seen_subcommand_from $cmds" -a approvers -d 'trusted approver keys'
complete -c sbx -n "not __fish_seen_subcommand_from $cmds" -a audit -d 'the audit log'
complete -c sbx -n "not __fish_seen_subcommand_from $cmds" -a history -d 'versions an agent replaced'
complete -c sbx -n "not __fish_seen_subcommand_from $cmds" -a restore -d 'bring a version back'
complete -c sbx -n "not __fish_seen_subcommand_from $cmds" -a ssh-command -d 'remote approver forced command'
complete -c sbx -n '__fish_seen_subcommand_from init' -l claude -l local -l mcp -l codex -l cursor
complete -c sbx -n '__fish_seen_subcommand_from init' -l name -r
complete -c sbx -n '__fish_seen_subcommand_from init remove' -a '(__fish_complete_directories)'
complete -c sbx -n '__fish_seen_subcommand_from remove' -l purge -l yes
complete -c sbx -n '__fish_seen_subcommand_from doctor pending show history rules approvers audit policy' -l json
complete -c sbx -n '__fish_seen_subcommand_from watch' -l all -l plain
complete -c sbx -n '__fish_seen_subcommand_from watch' -l notify -r
complete -c sbx -n '__fish_seen_subcommand_from show approve deny' -a '(__sbx_pending_ids)'
complete -c sbx -n '__fish_seen_subcommand_from approve' -l remember -l prefix -l for -l ttl
complete -c sbx -n '__fish_seen_subcommand_from deny' -l reason -r
complete -c sbx -n '__fish_seen_subcommand_from rules' -a 'list add rm'
complete -c sbx -n '__fish_seen_subcommand_from policy' -a 'accept edit check show'
complete -c sbx -n '__fish_seen_subcommand_from approvers' -a 'list add rm self'
complete -c sbx -n '__fish_seen_subcommand_from audit' -a 'verify show export'
complete -c sbx -n '__fish_seen_subcommand_from audit' -l evidence -r -F
complete -c sbx -n '__fish_seen_subcommand_from audit' -l syslog -l key -l request -l session -l since
complete -c sbx -n '__fish_seen_subcommand_from history restore' -F
complete -c sbx -n '__fish_seen_subcommand_from restore' -l version -r
