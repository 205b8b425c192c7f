# SPDX-License-Identifier: GPL-2.0-only
# bash completion for tract
_tract() {
	local cur prev words cword
	_init_completion || return
	if [ "$cword" -eq 1 ]; then
		COMPREPLY=($(compgen -W 'record schema version help --help --version' -- "$cur"))
		return
	fi
	case "${words[1]}" in
	record)
		case "$prev" in
		-o|--output) _filedir -d; return ;;
		--format) COMPREPLY=($(compgen -W 'sqlite csv' -- "$cur")); return ;;
		-p|--pid) COMPREPLY=($(compgen -W "$(command ls /proc | grep -E '^[0-9]+$')" -- "$cur")); return ;;
		-F|--frequency|-d|--duration|--idle-grace|--idle-syscalls) return ;;
		esac
		COMPREPLY=($(compgen -W '--frequency --duration --output --format --pid --all
			--idle-grace --idle-syscalls --no-kstacks --no-ustacks --syscall-latency --wakeup-edges --verbose --help' -- "$cur"))
		;;
	schema)
		COMPREPLY=($(compgen -W '--help' -- "$cur"))
		;;
	esac
}
complete -F _tract tract
