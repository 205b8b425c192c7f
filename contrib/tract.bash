# SPDX-License-Identifier: GPL-2.0-only
# bash completion for tract
_tract() {
	local cur prev words cword
	_init_completion || return
	if [ "$cword" -eq 1 ]; then
		COMPREPLY=($(compgen -W 'record query top flame heatmap wakes report clickhouse-schema ship schema version help --help --version' -- "$cur"))
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
		--unwind) COMPREPLY=($(compgen -W 'cfi fp' -- "$cur")); return ;;
		--clickhouse-password-file|--clickhouse-ca) _filedir; return ;;
		--clickhouse|--host|--clickhouse-user|--spool-max) return ;;
		-F|--frequency|-d|--duration|--idle-grace|--idle-syscalls|--untimed-syscalls|--keep|--max-size|--profile-hz) return ;;
		esac
		COMPREPLY=($(compgen -W '--frequency --duration --output --format --pid --all --source
			--idle-grace --idle-syscalls --group --keep --max-size --no-kstacks --no-ustacks --unwind --profile-hz
			--no-syscall-latency --untimed-syscalls --no-wakeup-edges --runq-latency --no-titles --clickhouse --host --clickhouse-user
			--clickhouse-password-file --clickhouse-ca --no-local --spool-max --verbose --help' -- "$cur"))
		;;
	query|top)
		case "$prev" in
		-D|--dir) _filedir -d; return ;;
		--format) COMPREPLY=($(compgen -W 'table csv json' -- "$cur")); return ;;
		--hist) COMPREPLY=($(compgen -W 'syscall runq io' -- "$cur")); return ;;
		-g|--group) COMPREPLY=($(compgen -W "$(tract query --columns 2>/dev/null | awk 'NR > 1 { print $1 }')" -- "$cur")); return ;;
		-w|--where|--from|--to|--sql|--timeout|--max-rows|-n|--top|--iterations|-i|--interval|--span|-F|--frequency|--clickhouse|--host|--clickhouse-user) return ;;
		--clickhouse-password-file|--clickhouse-ca) _filedir; return ;;
		esac
		if [ "${words[1]}" = query ]; then
			COMPREPLY=($(compgen -W '--group --where --from --to --top --format --hist --sql --timeout --max-rows
				--columns --dir --clickhouse --host --clickhouse-user --clickhouse-password-file --clickhouse-ca
				--strict --utc --local --verbose --help' -- "$cur"))
		else
			COMPREPLY=($(compgen -W '--group --where --live --frequency --dir --clickhouse --host --clickhouse-user
				--clickhouse-password-file --clickhouse-ca --from --to --span --interval --batch --iterations
				--strict --utc --local --verbose --help' -- "$cur"))
		fi
		;;
	flame)
		case "$prev" in
		-D|--dir) _filedir -d; return ;;
		-o|--output) _filedir; return ;;
		--format) COMPREPLY=($(compgen -W 'svg folded speedscope' -- "$cur")); return ;;
		-w|--where|--from|--to|--width|--diff-from|--diff-to) return ;;
		esac
		COMPREPLY=($(compgen -W '--output --format --width --profile --diff-from --diff-to --where --from --to
			--dir --clickhouse --host --clickhouse-user --clickhouse-password-file --clickhouse-ca
			--strict --utc --local --verbose --help' -- "$cur"))
		;;
	heatmap)
		case "$prev" in
		-D|--dir) _filedir -d; return ;;
		-o|--output) _filedir; return ;;
		--hist) COMPREPLY=($(compgen -W 'syscall io inflight' -- "$cur")); return ;;
		-w|--where|--from|--to) return ;;
		esac
		COMPREPLY=($(compgen -W '--hist --output --where --from --to --dir --clickhouse --host --clickhouse-user --clickhouse-password-file --clickhouse-ca
			--strict --utc --local --verbose --help' -- "$cur"))
		;;
	wakes)
		case "$prev" in
		-D|--dir) _filedir -d; return ;;
		-o|--output) _filedir; return ;;
		--format) COMPREPLY=($(compgen -W 'svg dot' -- "$cur")); return ;;
		-w|--where|--from|--to|-n|--max-edges) return ;;
		esac
		COMPREPLY=($(compgen -W '--output --format --max-edges --holders --where --from --to --dir --clickhouse --host --clickhouse-user --clickhouse-password-file --clickhouse-ca
			--strict --utc --local
			--verbose --help' -- "$cur"))
		;;
	report)
		case "$prev" in
		-D|--dir) _filedir -d; return ;;
		-o|--output) _filedir; return ;;
		-w|--where|--from|--to) return ;;
		esac
		COMPREPLY=($(compgen -W '--output --where --from --to --dir --clickhouse --host --clickhouse-user --clickhouse-password-file --clickhouse-ca
			--strict --utc --local --verbose --help' -- "$cur"))
		;;
	ship)
		case "$prev" in
		-D|--dir) _filedir -d; return ;;
		--clickhouse-password-file|--clickhouse-ca) _filedir; return ;;
		--clickhouse|--host|--clickhouse-user|--from|--to) return ;;
		esac
		COMPREPLY=($(compgen -W '--clickhouse --dir --from --to --host --clickhouse-user --clickhouse-password-file
			--clickhouse-ca --strict --verbose --help' -- "$cur"))
		;;
	clickhouse-schema)
		case "$prev" in
		--cluster|--database) return ;;
		esac
		COMPREPLY=($(compgen -W '--cluster --database --help' -- "$cur"))
		;;
	schema)
		COMPREPLY=($(compgen -W '--help' -- "$cur"))
		;;
	esac
}
complete -F _tract tract
