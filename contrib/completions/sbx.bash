# bash completion for sbx, sbxd, sbx-hook and sbx-mcp (installed by make
# install under each program's name, so bash-completion finds it).

# Ids of pending requests in the folder (-C DIR when given).
_sbx_pending_ids()
{
	sbx ${1:+-C "$1"} pending --json 2>/dev/null |
		grep -o '"id"[[:space:]]*:[[:space:]]*"[0-9a-f]*"' | grep -o '[0-9a-f]\{16\}'
}

_sbx()
{
	local cur prev cmd="" sub="" dir="" i opts
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD - 1]}
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-C) dir=${COMP_WORDS[i + 1]}; i=$((i + 1)) ;;
		-*) ;;
		*) if [ -z "$cmd" ]; then cmd=${COMP_WORDS[i]}; elif [ -z "$sub" ]; then sub=${COMP_WORDS[i]}; fi ;;
		esac
	done
	case $prev in
	-C | --cwd) mapfile -t COMPREPLY < <(compgen -d -- "$cur"); return ;;
	--notify) mapfile -t COMPREPLY < <(compgen -c -- "$cur"); return ;;
	--evidence | --hook-json | --batch) mapfile -t COMPREPLY < <(compgen -f -- "$cur"); return ;;
	--name | --reason | --prefix | --for | --ttl | --version | --key | --since | \
	--request | --session) return ;;
	esac
	case $cmd in
	"") opts="-C --help --version init remove handover doctor watch pending show approve deny
		rules policy approvers audit history restore ssh-command" ;;
	init) opts="--claude --local --mcp --codex --cursor --name --help" ;;
	remove) opts="--purge --yes --help" ;;
	handover) opts="--daemon-user --daemon-config --agent-config --undo --help" ;;
	doctor) opts="--json --help" ;;
	watch) opts="-C --all --plain --notify --help" ;;
	pending) opts="--json --help" ;;
	show) opts="--json --help $(_sbx_pending_ids "$dir")" ;;
	approve) opts="--remember --prefix --for --ttl --help $(_sbx_pending_ids "$dir")" ;;
	deny) opts="--reason --help $(_sbx_pending_ids "$dir")" ;;
	rules) [ -z "$sub" ] && opts="list add rm" || opts="--json --for" ;;
	policy) [ -z "$sub" ] && opts="accept edit check show" || opts="--json --cwd --batch --hook-json --" ;;
	approvers) [ -z "$sub" ] && opts="list add rm self" || opts="--json" ;;
	audit) [ -z "$sub" ] && opts="verify show export" ||
		opts="--json --evidence --key --request --session --since --syslog" ;;
	history) opts="--json" ;;
	restore) opts="--version" ;;
	ssh-command) opts="-C" ;;
	esac
	mapfile -t COMPREPLY < <(compgen -W "$opts" -- "$cur")
	case $cmd in
	init | remove | handover | history | restore)
		[ "${cur#-}" = "$cur" ] && mapfile -t -O "${#COMPREPLY[@]}" COMPREPLY < <(compgen -f -- "$cur") ;;
	esac
}

_sbxd()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
	case $prev in
	-c | --config) mapfile -t COMPREPLY < <(compgen -d -- "$cur"); return ;;
	--pass-env) mapfile -t COMPREPLY < <(compgen -v -- "$cur"); return ;;
	--originals-cap | --audit-segment-bytes) return ;;
	esac
	if [ "${cur#-}" != "$cur" ]; then
		mapfile -t COMPREPLY < <(compgen -W "-c --config --pass-env --originals-cap
			--audit-segment-bytes --all -v --verbose --help --version" -- "$cur")
	else
		mapfile -t COMPREPLY < <(compgen -d -- "$cur")
	fi
}

_sbx_hook()
{
	[ "$COMP_CWORD" -eq 1 ] && mapfile -t COMPREPLY < <(compgen -W "pre post session-start
		codex cursor --help --version" -- "${COMP_WORDS[COMP_CWORD]}")
}

_sbx_mcp()
{
	local cur=${COMP_WORDS[COMP_CWORD]}
	if [ "${COMP_WORDS[COMP_CWORD - 1]}" = --folder ]; then
		mapfile -t COMPREPLY < <(compgen -d -- "$cur")
	else
		mapfile -t COMPREPLY < <(compgen -W "--folder --help" -- "$cur")
	fi
}

complete -F _sbx sbx
complete -F _sbxd sbxd
complete -F _sbx_hook sbx-hook
complete -F _sbx_mcp sbx-mcp
