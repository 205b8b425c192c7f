#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Go, built as Go services ship (stripped: no symbol table, no DWARF) with
# Debian's Go: a goroutine spins in main.handleWork, which reads the clock
# through the vdso on each turn, and another sleeps.  Recorded with the
# default options, its frames are named from the binary's .gopclntab, its
# stacks unwound through the vdso back into Go by frame pointers, and no
# stack holds a frame the walk invented: no address that is not code
# above the first frame, nothing above goexit, the goroutine's first.
# Then the same program built with its symbols and Go's unwind tables.
. "$(dirname "$0")/lib.sh"
need_root_bpf

# Go from Debian, installed here if missing (make test installs it too)
if ! command -v go > /dev/null 2>&1; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends golang-go \
		> "$WORK/apt.log" 2>&1 || sed 's/^/# /' "$WORK/apt.log"
fi
command -v go > /dev/null 2>&1 || skip_all "no Go, and golang-go could not be installed"

mkdir -p "$WORK/src"
cat > "$WORK/src/main.go" << 'EOF'
package main

import (
	"fmt"
	"time"
)

var turns uint64

//go:noinline
func handleWork() {
	start := time.Now()
	for time.Since(start) < 2*time.Millisecond {
		turns++
	}
}

//go:noinline
func napper() {
	for {
		// 2 ms on a CPU between naps: its own stack is on a thread only while it runs
		for t := time.Now(); time.Since(t) < 2*time.Millisecond; {
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func main() {
	go napper()
	for i := 0; ; i++ {
		handleWork()
		if i == 10 {
			fmt.Println("ready")
		}
	}
}
EOF
printf 'module spin\n\ngo 1.17\n' > "$WORK/src/go.mod"
# stripped, and as built by default: with a symbol table and Go's DWARF
(cd "$WORK/src" && export GOFLAGS=-mod=mod GOCACHE="$WORK/gocache" GOPATH="$WORK/gopath" &&
	go build -ldflags='-s -w' -o "$WORK/spin" . && go build -o "$WORK/spin-full" .) > "$WORK/build.log" 2>&1 ||
	skip_all "go cannot build here: $(head -1 "$WORK/build.log")"

test_expect_success 'the Go binary has no symbol table, but its function table' '
	readelf -SW "$WORK/spin" > "$WORK/sections" &&
	test_grep -v "\.symtab" "$WORK/sections" &&
	test_grep "\.gopclntab" "$WORK/sections"
'

"$WORK/spin" > "$WORK/spin.out" 2>&1 &
SPIN=$!
bg_started $SPIN
wait_ready "$WORK/spin.out" || exit 1
rec_rc=0
"$TRACT" record -F 10 -d 5 -p $SPIN -o "$WORK/store" 2> "$WORK/record.err" || rec_rc=$?
end_children $SPIN
DB=$(one_store "$WORK/store")

test_expect_success 'the recording succeeds' '
	test_holds "$rec_rc" -eq 0
'

# the spinning thread: the one with the most RUN samples
tid=$(q "$DB" "select tid from samples where tgid = $SPIN and state = 'RUN' group by tid order by count(*) desc limit 1")
runs="samples x join stacks s on s.id = x.ustack_id where x.tgid = $SPIN and x.tid = ${tid:-0} and x.state = 'RUN'"
all=$(q "$DB" "select count(*) from $runs")
named=$(q "$DB" "select count(*) from $runs and s.frames like '%main.handleWork%'")
share_at_least() { awk -v a="$1" -v b="$2" -v s="$3" 'BEGIN { exit !(b > 0 && a / b >= s) }'; }
test_expect_success "RUN samples of the spinning thread name main.handleWork ($named of $all)" '
	test_holds "$all" -ge 5 &&
	share_at_least "$named" "$all" 0.8
'

prof="profile p join threads t on t.id = p.thread join stacks s on s.id = p.ustack where t.tgid = $SPIN"
ticks=$(q "$DB" "select coalesce(sum(ticks), 0) from $prof and t.tid = ${tid:-0}")
tnamed=$(q "$DB" "select coalesce(sum(ticks), 0) from $prof and t.tid = ${tid:-0} and s.frames like '%main.handleWork%'")
test_expect_success "and so do its profile ticks ($tnamed of $ticks)" '
	share_at_least "$tnamed" "$ticks" 0.8
'
test_expect_success 'through the clock read in the vdso, by name' '
	q "$DB" "select count(*) from $prof and s.frames like '"'"'%main.handleWork;time.Since;%runtime.nanotime1%'"'"'" > "$WORK/vdso" &&
	test_holds "$(cat "$WORK/vdso")" -gt 0
'

# every user stack of the process, one a line, outermost frame first
q "$DB" "select distinct s.frames from stacks s where s.id in
	(select ustack_id from samples where tgid = $SPIN union select p.ustack from $prof)" > "$WORK/stacks"
test_expect_success 'no stack holds a frame the walk invented' '
	test -s "$WORK/stacks" &&
	! grep -n "\[unknown\][^;]*;" "$WORK/stacks" > "$WORK/invented" &&
	! grep -n "runtime\.goexit[^;]*;[^;]*runtime\.goexit\|;runtime\.goexit" "$WORK/stacks" >> "$WORK/invented" &&
	test_must_be_empty "$WORK/invented"
'
test_expect_success 'goroutines end at goexit, not cut' '
	test_grep "^runtime\.goexit[^;]*;main\.napper" "$WORK/stacks"
'

# the same program with its symbols and Go's own unwind tables, which
# count frames from the stack pointer, wrong past the vdso's stack switch
"$WORK/spin-full" > "$WORK/full.out" 2>&1 &
FULL=$!
bg_started $FULL
wait_ready "$WORK/full.out" || exit 1
rec_rc=0
"$TRACT" record -F 10 -d 3 -p $FULL -o "$WORK/full" 2> "$WORK/full.err" || rec_rc=$?
end_children $FULL
DB=$(one_store "$WORK/full")
prof="profile p join threads t on t.id = p.thread join stacks s on s.id = p.ustack where t.tgid = $FULL"
# the spinning thread's: the one with the most ticks (on a busy host the runtime's own threads take more of them)
spinner=$(q "$DB" "select t.tid from $prof group by t.tid order by sum(ticks) desc limit 1")
ticks=$(q "$DB" "select coalesce(sum(ticks), 0) from $prof and t.tid = ${spinner:-0}")
tnamed=$(q "$DB" "select coalesce(sum(ticks), 0) from $prof and t.tid = ${spinner:-0} and s.frames like '%main.handleWork%'")
test_expect_success "with its symbols and tables, its spinning thread's profile ticks name main.handleWork ($tnamed of $ticks)" '
	test_holds "$rec_rc" -eq 0 &&
	share_at_least "$tnamed" "$ticks" 0.8
'
q "$DB" "select distinct s.frames from stacks s where s.id in
	(select ustack_id from samples where tgid = $FULL union select p.ustack from $prof)" > "$WORK/full-stacks"
test_expect_success 'and no stack holds a frame the walk invented' '
	test -s "$WORK/full-stacks" &&
	! grep -n "\[unknown\][^;]*;" "$WORK/full-stacks" > "$WORK/full-invented" &&
	! grep -n ";runtime\.goexit" "$WORK/full-stacks" >> "$WORK/full-invented" &&
	test_must_be_empty "$WORK/full-invented"
'
done_testing
