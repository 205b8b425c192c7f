#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# suite-why.sh STEP LOG: the few lines of a failed step's log that say why it
# failed, for the end of `make test`: failing TAP tests with their file and
# diagnostics, failing cmocka tests with their assertion, sanitizer and fuzzer
# reports (their error, the top of the stack, the crash input; never the
# shadow-byte legend), compile errors, a guest kernel's failed check and
# console, and then the last lines of the log.
step=$1
log=$2
[ -r "$log" ] || { echo "    (no log: $log)"; exit 0; }

# ASan's shadow-memory dump and legend say nothing a reader needs here
unshadowed() {
	grep -a -v -E '^(Shadow byte|Shadow bytes around|  (Addressable|Partially|Heap|Freed|Stack|Global|Poisoned|Container|Array|Intra|ASan|Left|Right)[a-zA-Z ]*:|=?>? *0x[0-9a-f]+: )' "$1"
}

why() {
	case $step in
	integration | busy | san-record | package)
		# prove -v --timer: a file's name, after the time, starts its block;
		# "not ok" and its "#" lines
		awk '/^(\[[0-9:]+\] )?tests\/.*\.t \.*/ { file = $0; sub(/^\[[0-9:]+\] /, "", file); sub(/ .*/, "", file); next }
		     /^not ok/ { print "  " file ": " $0; diag = 10; next }
		     diag > 0 && /^#/ && !/^# [0-9]+ tests, / { print "      " $0; diag--; next }
		     { diag = 0 }' "$log"
		# prove's report names every failed file, also one that died
		# without a "not ok" (a crash, a bad plan): it ends the summary
		echo "  prove's report:"
		sed -n '/^Test Summary Report/,/^Result: /p' "$log" | grep -a -v -E '^(Test Summary|---)' | head -n 16 | sed 's/^/  | /'
		tail_lines=0
		return
		;;
	unit | san | layers)
		awk '/^== / { bin = $2; next }
		     /listed below/ { next }
		     /\[  FAILED  \]/ && seen[bin $0]++ { next }
		     /\[  (ERROR|FAILED) *\]|\[   LINE   \]|runtime error|ERROR: (Address|Leak|Undefined)|^SUMMARY: / {
			if (bin != shown) { print "  " bin; shown = bin }
			print "      " $0; if (/ERROR: |runtime error/) frames = 6; next }
		     frames > 0 && /^ +#[0-9]+ / && !/fuzzer::|libc_start|in _start |in main / {
			sub(/ \(BuildId: [0-9a-f]+\)/, ""); print "      " $0; frames--; next }
		     /^ +#[0-9]+ / { next }
		     { frames = frames }' "$log" | head -n 30
		;;
	fuzz)
		awk '/^  FUZZ / { target = $2; next }
		     /ERROR: |runtime error|deadly signal|Test unit written to|Base64: |^SUMMARY: |crash input|add it to/ {
			if (target != shown) { print "  " target; shown = target }
			print "      " $0; if (/ERROR: |runtime error/) frames = 6; next }
		     frames > 0 && /^ +#[0-9]+ / && !/fuzzer::|libc_start|in _start |in main / {
			sub(/ \(BuildId: [0-9a-f]+\)/, ""); print "      " $0; frames--; next }' "$log" | head -n 30
		;;
	kernels | guests)
		awk '/^not ok/ { print "  " $0; more = 12; next }
		     more > 0 { print "      " $0; more--; next }
		     /^(booting|kernels:)/ { print "  " $0 }' "$log" | head -n 40
		;;
	leftovers)
		sed 's/^/  /' "$log" | head -n 20
		tail_lines=0
		return
		;;
	esac
	# a compile or link error in any step
	grep -a -E ': (error|undefined reference)' "$log" | grep -v -F '[   LINE   ]' | head -n 8 | sed 's/^/  /'
}

tail_lines=8
said=$(why)
[ -n "$said" ] && echo "$said"
# where the lines above are a report (a test's, a crash's, a guest's), the
# log's tail would only repeat it
case $step in integration | busy | san-record | package | fuzz | kernels | guests | leftovers) [ -n "$said" ] && tail_lines=0 ;; esac
[ "$tail_lines" -gt 0 ] || exit 0
echo "  last lines of $log:"
unshadowed "$log" | tail -n "$tail_lines" | sed 's/^/  | /'
