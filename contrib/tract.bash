# SPDX-License-Identifier: GPL-2.0-only
# bash completion for tract
_tract() {
	local cur prev words cword
	_init_completion || return
	if [ "$cword" -eq 1 ]; then
		COMPREPLY=($(compgen -W 'record query top schema version help --help --version' -- "$cur"))
		return
	fi
	case "${words[1]}" in
	record)
		case "$prev" in
		-o|--output) _filedir -d; return ;;
		--format) COMPREPLY=($(compgen -W 'sqlite csv' -- "$cur")); return ;;
		-p|--pid) COMPREPLY=($(compgen -W "$(command ls /proc | grep -E '^[0-9]+$')" -- "$cur")); return ;;
		--group) COMPREPLY=($(compgen -g -- "$cur")); return ;;
		--source) COMPREPLY=($(compgen -W 'bpf proc' -- "$cur")); return ;;
		-F|--frequency|-d|--duration|--idle-grace|--idle-syscalls|--keep|--max-size) return ;;
		esac
		COMPREPLY=($(compgen -W '--frequency --duration --output --format --pid --all --source
			--idle-grace --idle-syscalls --group --keep --max-size --no-kstacks --no-ustacks --syscall-latency --wakeup-edges --runq-latency --verbose --help' -- "$cur"))
		;;
	query|top)
		case "$prev" in
		-D|--dir) _filedir -d; return ;;
		--format) COMPREPLY=($(compgen -W 'table csv json' -- "$cur")); return ;;
		--hist) COMPREPLY=($(compgen -W 'syscall runq io' -- "$cur")); return ;;
		-g|--group) COMPREPLY=($(compgen -W "$(tract query --columns 2>/dev/null | awk 'NR > 1 { print $1 }')" -- "$cur")); return ;;
		-w|--where|--from|--to|--sql|-n|--top|--iterations|-i|--interval|--span|-F|--frequency) return ;;
		esac
		if [ "${words[1]}" = query ]; then
			COMPREPLY=($(compgen -W '--group --where --from --to --top --format --hist --sql --columns
				--dir --verbose --help' -- "$cur"))
		else
			COMPREPLY=($(compgen -W '--group --where --live --frequency --dir --from --to --span
				--interval --batch --iterations --verbose --help' -- "$cur"))
		fi
		;;
	schema)
		COMPREPLY=($(compgen -W '--help' -- "$cur"))
		;;
	esac
}
complete -F _tract tract
