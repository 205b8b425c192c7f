#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The OpenTelemetry thread context (OTEP 4947): threads that publish known
# trace and span ids through tract's writer, built in every TLS model a
# reader must handle (a library with TLSDESC, general-dynamic and
# initial-exec, the executable itself, a library dlopen'ed after the
# threads exist); each thread's samples carry exactly its ids, a thread
# that detached and one that never published none.  A process that
# publishes garbage gives no id, never a wrong one; --trace and filters
# find a request's time.  With a process context (OTEP 4719) naming the
# attribute keys, each sample carries its thread's attributes as text.
. "$(dirname "$0")/lib.sh"
need_root_bpf
[ -n "${OTEL:-}" ] && [ -x "$OTEL/otel_desc" ] || skip_all "needs the thread-context test programs ('make' builds them in build/otel)"
N=4

# run PROGRAM ARGS...: start it, and record it for 2 s into $WORK/NAME (NAME
# the program's, unless set) in the background, beside the others run so far
RUN_PROGS=
RUN_RECS=
run() {
	name=${NAME:-$(basename "$1")}
	"$@" $N > "$WORK/$name.out" 2>&1 &
	RUN_PROGS="$RUN_PROGS $!"
	bg_started $!
	# (its output file may not be there yet)
	for _ in $(seq 50); do grep -qs '^ready' "$WORK/$name.out" && break; sleep 0.1; done
	pid=$(sed -n 's/^ready pid=//p' "$WORK/$name.out")
	"$TRACT" record -v -F 10 -d 2 -p "$pid" -o "$WORK/$name" 2> "$WORK/$name.err" &
	RUN_RECS="$RUN_RECS $!"
}
# recorded: every recording run started is done, and its program ended
recorded() {
	# shellcheck disable=SC2086
	wait $RUN_RECS
	# shellcheck disable=SC2086
	kill $RUN_PROGS
	# shellcheck disable=SC2086
	wait $RUN_PROGS 2> /dev/null
	RUN_PROGS=
	RUN_RECS=
}

# each thread: its samples, with the right ids, with other ids: "comm samples right wrong"
ids_of() {
	q "$(one_store "$WORK/$1")" "select comm, count(*),
		sum(case when trace_id = printf('4bf92f3577b34da6a3ce929d0e0e47%02x', cast(substr(comm, 4) as integer))
		          and span_id = printf('00f067aa0ba902%02x', cast(substr(comm, 4) as integer)) then 1 else 0 end),
		sum(case when trace_id is not null and not (trace_id = printf('4bf92f3577b34da6a3ce929d0e0e47%02x',
		          cast(substr(comm, 4) as integer)) and comm like 'ctx%') then 1 else 0 end)
		from samples where pcomm like 'otel_%' group by comm order by comm"
}

# every ctxK thread: most samples with its own ids (the first pass comes before the process is searched),
# none with another; detached and plain: none at all
check() {
	ids_of "$1" > "$WORK/$1.ids"
	awk -v n=$N '
		$1 ~ /^ctx/ { k++; if ($3 < 0.8 * $2 || $4 > 0) bad = bad " " $0 }
		$1 == "detached" || $1 == "plain" { o++; if ($3 + $4 > 0) bad = bad " " $0 }
		END { if (k != n || o != 2) bad = bad " (" k " publishing, " o " others)"; if (bad != "") { print bad; exit 1 } }' \
		FS='|' "$WORK/$1.ids"
}

# the programs' threads wait in read(): recorded at once, they take no CPU
# from each other; the one with a thread on its CPU (--attrs) after them
for variant in desc gd ie exe; do
	run "$OTEL/otel_$variant"
done
run "$OTEL/otel_dlopen" --dlopen "$OTEL/libotel_dl.so"
recorded
NAME=otel_attrs run "$OTEL/otel_desc" --attrs
recorded
ok "TLSDESC in a library: every thread's ids exactly, none for the detached and the silent" check otel_desc
ok "general-dynamic (dynamic TLS, through the DTV)" check otel_gd
ok "initial-exec" check otel_ie
ok "local-exec, in the executable" check otel_exe
ok "a library dlopen'ed after its threads exist" check otel_dlopen
models=$(for v in desc gd ie exe dlopen; do grep -o 'by [a-z]* TLS' "$WORK/otel_$v.err" | head -n 1 | cut -d' ' -f2; done | tr '\n' ' ')
ok "and each by the model it was built with ($models)" test "$models" = "tlsdesc gd ie le gd "

# what a person asks
"$TRACT" query -D "$WORK/otel_gd" --from @0 --to now -g trace_id,state --format csv > "$WORK/by_trace.csv"
ok "-g trace_id,state: a row for each request" test "$(grep -c '^4bf92f3577b34da6a3ce929d0e0e47' "$WORK/by_trace.csv")" -eq $N
"$TRACT" query -D "$WORK/otel_gd" --from @0 --to now --trace 4BF92F3577B34DA6A3CE929D0E0E4702 -g comm --format csv \
	> "$WORK/trace.csv"
ok "--trace ID: that request's threads alone" test "$(tail -n +2 "$WORK/trace.csv" | cut -d, -f1 | tr -d '\r')" = ctx2
"$TRACT" query -D "$WORK/otel_gd" --from @0 --to now --trace 00-4bf92f3577b34da6a3ce929d0e0e4703-00f067aa0ba90203-01 \
	--format csv > "$WORK/tp.csv"
test_expect_success '--trace takes a traceparent, and says where the time went by state, syscall, wait and file' '
	head -n 1 "$WORK/tp.csv" > "$WORK/tp.head" &&
	test_grep "^state,syscall,wait,file," "$WORK/tp.head" &&
	test_grep "^SLEEP,read," "$WORK/tp.csv"
'
"$TRACT" flame -D "$WORK/otel_gd" --from @0 --to now -w 'trace_id = 4bf92f3577b34da6a3ce929d0e0e4701' --format folded \
	> "$WORK/trace.folded"
test_expect_success 'tract flame -w trace_id=...: its stacks only' '
	test_holds -s "$WORK/trace.folded" &&
	test_grep ! -v "worker;read" "$WORK/trace.folded"
'

# ---- attributes, named by the process context ----
q "$(one_store "$WORK/otel_attrs")" "select comm, trace_attrs, count(*) from samples
	where pcomm like 'otel_%' and trace_id is not null group by 1, 2 order by 1, 2" > "$WORK/attrs.txt"
ok "attributes: each thread's, by the process context's names, escaped, the last of a key given twice ($(tr '\n' ';' < "$WORK/attrs.txt"))" \
	awk -F'|' -v n=$N '
		$1 ~ /^ctx/ { k = substr($1, 4); if ($2 == "http.route=/api/" k " user.id=u\\x20" k " odd\\x3dkey=v") good++; else bad = 1 }
		END { exit bad || good != n }' "$WORK/attrs.txt"
# (on a busy machine the spinner waits for a CPU in some passes: most of its RUN samples, not all)
read -r spin_run spin_attrs spin_other <<EOF
$(q "$(one_store "$WORK/otel_attrs")" "select count(*), count(case when trace_attrs = 'http.route=/spin' then 1 end),
	count(case when trace_attrs != 'http.route=/spin' then 1 end) from samples where comm = 'spin' and state = 'RUN'" |
	tr '|' ' ')
EOF
test_expect_success "and a thread on its CPU, read twice, has its own (http.route=/spin in $spin_attrs of $spin_run RUN samples)" '
	test_holds "$spin_run" -ge 3 &&
	test_holds $((spin_attrs * 2)) -ge "$spin_run" &&
	test_holds "$spin_other" -eq 0
'
ok "without a process context, no attributes" test \
	"$(q "$(one_store "$WORK/otel_gd")" "select count(*) from samples where trace_attrs is not null")" -eq 0
"$TRACT" query -D "$WORK/otel_attrs" --from @0 --to now -w "trace_attrs ~ 'route=/api/1 '" -g traceparent,trace_attrs \
	--format csv > "$WORK/tp_attrs.csv"
test_expect_success '-w on trace_attrs, -g traceparent: the W3C traceparent of that request' '
	tail -n +2 "$WORK/tp_attrs.csv" | cut -d, -f1 > "$WORK/tp_attrs.ids" &&
	test_line_count = 1 "$WORK/tp_attrs.ids" &&
	test_grep -x 00-4bf92f3577b34da6a3ce929d0e0e4701-00f067aa0ba90201-01 "$WORK/tp_attrs.ids"
'

"$TRACT" top -D "$WORK/otel_attrs" -b -n 1 -g trace_id,trace_attrs > "$WORK/top.txt" 2>&1
test_expect_success 'tract top -g trace_id,trace_attrs: a row for each request, with its attributes' '
	test_grep " 4bf92f3577b34da6a3ce929d0e0e47[0-9a-f][0-9a-f]  http.route=/" "$WORK/top.txt" &&
	grep " 4bf92f3577b34da6a3ce929d0e0e47[0-9a-f][0-9a-f]  http.route=/" "$WORK/top.txt" > "$WORK/top.rows" &&
	test_line_count = $((N + 1)) "$WORK/top.rows"
'

# ---- garbage ----
"$OTEL/otel_garbage" > "$WORK/garbage.out" 2>&1 &
prog=$!
for _ in $(seq 50); do grep -q '^ready' "$WORK/garbage.out" && break; sleep 0.1; done
pid=$(sed -n 's/^ready pid=//p' "$WORK/garbage.out")
"$TRACT" record -F 20 -d 3 -p "$pid" -o "$WORK/garbage" 2> "$WORK/garbage.err"
rc=$?
kill $prog
db=$(one_store "$WORK/garbage")
q "$db" "select comm, coalesce(trace_id, '-') || '/' || coalesce(span_id, '-'), count(*) from samples
	group by 1, 2 order by 1, 2" > "$WORK/garbage.ids"
test_expect_success "garbage published: unmapped memory, valid = 2, a zero trace: no id, and no crash (exit $rc)" '
	test_holds "$rc" -eq 0 &&
	test_grep ! "^\(unmapped\|invalid\|zero\)|[0-9a-f]" "$WORK/garbage.ids"
'
test_expect_success "a pointer swapped while read: one of its records' ids, or none, never a mix; a good one read" '
	grep "^churn|" "$WORK/garbage.ids" | cut -d"|" -f2 > "$WORK/churn.ids" &&
	test_grep ! -v -e "^-/-\$" -e "^5\{32\}/5\{16\}\$" -e "^6\{32\}/6\{16\}\$" "$WORK/churn.ids" &&
	test_grep "^good|4\{32\}/\(45\)\{8\}|" "$WORK/garbage.ids"
'
done_testing
