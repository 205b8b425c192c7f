#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# CPython's own frames: Debian's python3 (3.11) runs a thread in a
# CPU-bound function, another asleep in time.sleep() and a third blocked
# in recv().  Their user stacks
# name the Python functions with file and line where the interpreter runs
# them, on CPU (RUN) and off (SLEEP), between native frames that still read
# as before.  A fourth process runs short bursts between sleeps: its RUN
# samples never name the sleep its thread went on to.
. "$(dirname "$0")/lib.sh"
need_root_bpf

# Debian's own interpreter: a python3 earlier on PATH may be another build
PY=
for p in /usr/bin/python3.11 /usr/bin/python3; do
	[ -x "$p" ] && "$p" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2> /dev/null && { PY=$p; break; }
done
[ -n "$PY" ] || skip_all "no /usr/bin/python3 of 3.11 or later"

# each thread names itself, so that the samples tell them apart
cat > "$WORK/app.py" << 'EOF'
import ctypes, socket, sys, threading, time
libc = ctypes.CDLL(None)
def named(name):
    libc.prctl(15, name.encode(), 0, 0, 0)
def compute(n):
    s = 0
    for i in range(n):
        s += i * i
    return s
def spin():
    named("pyspin")
    while True:
        compute(100000)
def nap():
    named("pynap")
    while True:
        time.sleep(0.3)
def listen(sock):
    named("pyrecv")
    return sock.recv(1)
ours, theirs = socket.socketpair()
threading.Thread(target=spin, daemon=True).start()
threading.Thread(target=nap, daemon=True).start()
threading.Thread(target=listen, args=(ours,), daemon=True).start()
print("ready", flush=True)
time.sleep(float(sys.argv[1]))
EOF
"$PY" "$WORK/app.py" 60 > "$WORK/py.out" 2>&1 &
PY_PID=$!
bg_started $PY_PID
wait_until 20 grep -q ready "$WORK/py.out" || skip_all "python did not start: $(head -1 "$WORK/py.out")"

recorded=0
# --all: a thread asleep on a timer is idle, and left out by default
"$TRACT" record --all -F 10 -d 3 -p $PY_PID -o "$WORK/py" 2> "$WORK/record.err" || recorded=$?
end_children $PY_PID
ok 'tract recorded the Python process' test_holds "$recorded" -eq 0
[ "$recorded" -eq 0 ] || { done_testing; exit 1; }
db=$(one_store "$WORK/py")
APP=$WORK/app.py

# samples of thread COMM in STATE: all, and those whose user stack matches a LIKE pattern
samples() { q "$db" "select count(*) from samples s left join stacks k on k.id = s.ustack_id
	where s.comm = '$1' and s.state = '$2' ${3:+and k.frames like '$3'}"; }
share_at_least() { awk -v a="$1" -v b="$2" -v s="$3" 'BEGIN { exit !(b > 0 && a / b >= s) }'; }

# the loop's lines: "for i in range(n)" (7) and "s += i * i" (8); spin calls it from line 13
run=$(samples pyspin RUN)
named=$(samples pyspin RUN "%;spin ($APP:13);compute ($APP:_)%")
# Python frames are left off (native kept) where the thread had moved on
# between the moment and the reading: the spinner gives the GIL to the
# others and takes it back several times a second, so more of its samples
# keep native frames only the later a busy host lets the recorder read
# them (here 2 to 11 in 30 when quiet, 12 or more in two loaded runs).
# Those with Python frames must name compute(), and a third of the samples
# at least must have them.
framed=$(samples pyspin RUN "%($APP:%")
ok "the spinning thread's RUN samples with Python frames name compute() with its file and line ($named of $framed; $run samples)" \
	share_at_least "$named" "$framed" 0.9
ok "and a third of its RUN samples at least have them ($framed of $run)" \
	share_at_least "$framed" "$run" 0.33
lines=$(q "$db" "select count(*) from samples s join stacks k on k.id = s.ustack_id where s.comm = 'pyspin'
	and k.frames like '%compute ($APP:_)%' and k.frames not like '%compute ($APP:7)%'
	and k.frames not like '%compute ($APP:8)%'")
ok 'on the lines of its loop' test_holds "$lines" -eq 0
sleep=$(samples pynap SLEEP)
napping=$(samples pynap SLEEP "%;nap ($APP:17);%;clock_nanosleep")
ok "the sleeping thread's SLEEP samples name nap() at time.sleep, native frames under it ($napping of $sleep)" \
	share_at_least "$napping" "$sleep" 0.8
waiting=$(samples pyrecv SLEEP)
listening=$(samples pyrecv SLEEP "%;listen ($APP:20);%recv%")
ok "the thread blocked in recv() names listen() there ($listening of $waiting)" \
	share_at_least "$listening" "$waiting" 0.8
# the interpreter's native frames stay where Python's do not replace them
whole=$(samples pynap SLEEP "%start_thread;%;Thread._bootstrap (%threading.py:%);%;nap ($APP:17);%")
ok "from the thread's start through threading's frames ($whole of $sleep)" share_at_least "$whole" "$sleep" 0.8
evals=$(q "$db" "select count(*) from stacks where frames like '%_PyEval_EvalFrameDefault%' and frames like '%app.py%'")
ok 'no stack keeps an eval call whose Python frames it shows' test_holds "$evals" -eq 0

# A thread that runs short bursts between sleeps: its RUN samples' native
# stacks are copied at the pass's moment, in a burst, but the Python frames
# are read later, once it is back asleep at time.sleep (line 9), which the
# native stack (one eval call runs both functions) cannot tell.  Such a
# sample shows its native frames only, not the sleep's line.
cat > "$WORK/bursty.py" << 'EOF'
import ctypes, time
def work(n):
    s = 0
    for i in range(n):
        s += i * i
def loop():
    while True:
        work(3000)
        time.sleep(0.001)
ctypes.CDLL(None).prctl(15, b"pyburst", 0, 0, 0)
print("ready", flush=True)
loop()
EOF
"$PY" "$WORK/bursty.py" > "$WORK/bursty.out" 2>&1 &
BURST_PID=$!
bg_started $BURST_PID
recorded=0
if wait_until 20 grep -q ready "$WORK/bursty.out"; then
	# its bursts are a tenth of its time or less: passes enough to catch dozens
	"$TRACT" record -F 100 -d 5 -p $BURST_PID -o "$WORK/burst" 2> "$WORK/burst.err" || recorded=$?
else
	recorded=$(head -1 "$WORK/bursty.out")
fi
end_children $BURST_PID
ok 'tract recorded the bursty process' test_holds "$recorded" = 0
[ "$recorded" = 0 ] || { done_testing; exit 1; }
db=$(one_store "$WORK/burst")
APP=$WORK/bursty.py
# RUN samples of the bursty thread whose user stack matches a LIKE pattern (and not another)
bursts() { q "$db" "select count(*) from samples s join stacks k on k.id = s.ustack_id
	where s.comm = 'pyburst' and s.state = 'RUN' and k.frames like '$1' ${2:+and k.frames not like '$2'}"; }
interp=$(bursts "%_PyEval_EvalFrameDefault%")
pyframes=$(bursts "%loop ($APP:_)%")
ok "its RUN samples in the interpreter keep their stack ($interp native only, $pyframes with Python frames)" \
	test_holds $((interp + pyframes)) -ge 5
# the sleep's line innermost, with no sleep in the native frames under it
asleep=$(bursts "%loop ($APP:9)%" "%loop ($APP:9);%sleep%")
# (frames read a little after the moment: one that finished its burst but has not slept yet
# shows the line after it, which no count can tell; 1 in 24 on a busy host, 3 in 10 unchecked)
ok "at most 1 in 10 (or 1) names the sleep's line where its native stack is not in it ($asleep of $pyframes)" \
	test_holds $((asleep * 10)) -le $((pyframes + 10))
working=$(bursts "%loop ($APP:8);work ($APP:_)%")
# those caught at the sleep itself (woken, its native stack in it) rightly name its line
sleeping=$(bursts "%loop ($APP:9);%sleep%")
# (of the rest all but the one that may show the line after its burst)
ok "those with Python frames in the burst name work() ($working of $pyframes, $sleeping at the sleep)" \
	test_holds $(((working + 1) * 2)) -ge $((pyframes - sleeping))

done_testing
