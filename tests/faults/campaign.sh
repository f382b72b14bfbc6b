#!/bin/sh
# campaign.sh WMRUN [ROUNDS] -- a fault campaign against real wmrun jobs:
# faults injected at random moments, each run checked against what the
# README promises, one line of figures per kind of fault at the end.
#
#   kill     SIGKILL of a random worker at a random moment: exit 1, the
#            worker named with its pid and signal 9, no process left, a
#            summary that says "failed" and accounts for every record (in
#            flight included), outputs ending with whole lines
#   setup    SIGINT, SIGTERM or SIGHUP 0-60 ms after the start (set-up,
#            forks, the start line): exit 128 + n, no process left, no
#            temporary summary file
#   stop     SIGSTOP of a random worker, then Ctrl-C: exit 1 within the
#            drain's 5 s and the 2 s after SIGTERM, the worker named
#   reader   a reader of the results that takes 8 KB/s: exit 0, every
#            result read, and every process's peak resident memory
#   disk     results into a 64 KiB tmpfs (root only): exit 74 within
#            seconds, "No space left on device", whole lines
#   pipe     a reader that goes away after two lines: exit 74
#   lock     two checkpointed jobs started 0-300 ms apart on one
#            checkpoint directory: one runs to exit 0 with every result
#            in its file, the other exits 75 naming the first's pid and
#            creates nothing
#   observer the observer SIGSTOPped, then Ctrl-C: exit 130 within the
#            5 s the observer is waited for, the observer named by pid,
#            no process left
#   teardown every attempt failing at once (futex_fails, beside wmrun
#            in the build tree), SIGTERM at a random moment: the job
#            ends (71 or 143), at most one restart after the signal
#   restore  a bit flipped in a random blob of a random retained
#            checkpoint, then --resume: exit 0 (restored, or from the
#            one before) or 65/66 naming a checkpoint; never 70, never
#            a signal, never more than two restarts
#   swap     the checkpoint directory swapped for a link to another
#            directory mid-run: nothing written through the link, the
#            job ends within its restart attempts
#
# Not part of `make check` (it takes minutes); run it by hand, as root for
# the tmpfs:  sh tests/faults/campaign.sh _build/wmrun 20
# or some kinds only:  sh tests/faults/campaign.sh _build/wmrun 20 lock swap
set -u
WMRUN=${1:?usage: campaign.sh WMRUN [ROUNDS [KIND...]]}
ROUNDS=${2:-20}
shift $(($# < 2 ? $# : 2))
KINDS=$*
# Each kind's section below stands unindented in "if wanted KIND", so
# that its here-documents and inline Python stay as written.
wanted() { # wanted KIND -- every kind, or those named after ROUNDS
	[ -z "$KINDS" ] || case " $KINDS " in *" $1 "*) ;; *) false ;; esac
}
dir=$(mktemp -d "${TMPDIR:-/tmp}/wmfaults.XXXXXX") || exit 1
trap 'umount "$dir/small" 2>/dev/null; rm -rf "$dir"' EXIT

# A job of every kind of stage, busy enough that every ring carries
# frames, long enough never to end by itself during a fault.
job() { # job OUTPUT
	cat <<CONF
[job]
processing_time = 1 h
speed = 1
ring_size = 8 KiB
[source s]
parallelism = 2
partitions = 4
rate = 2000/s
keys = 64
[keyby k]
input = s
parallelism = 2
[window w]
input = k
parallelism = 2
size = 100 ms
[sink o]
input = w
parallelism = 2
path = $1
CONF
}
job "$dir/out.csv" >"$dir/job.conf"

rand() { # rand N -- a number in [0, N)
	od -An -N4 -tu4 /dev/urandom | awk -v n="$1" '{ print $1 % n }'
}

now_ms() { date +%s%3N; }

# until_up PID N -- wait (10 s at most) for N workers of PID.
until_up() {
	i=0
	while [ "$(pgrep -P "$1" | wc -l)" -lt "$2" ] && [ $i -lt 200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
}

left_over() { # left_over -- processes of the campaign's jobs still alive
	pgrep -f "$dir/" | wc -l
}

all_gone() { # all_gone -- wait (5 s at most) until no process is left
	i=0
	while [ "$(left_over)" -ne 0 ] && [ $i -lt 100 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	[ "$(left_over)" -eq 0 ]
}

whole_lines() { # whole_lines FILE -- empty, or ends with a line end
	[ ! -s "$1" ] || [ "$(tail -c 1 "$1" | od -An -c | tr -d ' ')" = '\n' ]
}

ok=0
bad=0
note() { # note CASE OK|BAD WHY
	if [ "$2" = OK ]; then ok=$((ok + 1)); else bad=$((bad + 1)); fi
	[ "$2" = OK ] || echo "  $1: $3" >&2
}

# ---- kill ----
if wanted kill; then
kills=0
kills_ok=0
flight=0
for r in $(seq "$ROUNDS"); do
	rm -f "$dir/out.csv" "$dir/s.json"
	env --default-signal=INT "$WMRUN" --summary "$dir/s.json" "$dir/job.conf" \
		>/dev/null 2>"$dir/err" &
	sup=$!
	until_up "$sup" 6
	sleep "0.$(rand 10)$(rand 10)"
	set -- $(pgrep -P "$sup")
	shift "$(rand $#)"
	victim=$1
	name=$(cat "/proc/$victim/comm" 2>/dev/null)
	kill -9 "$victim"
	wait "$sup"
	rc=$?
	kills=$((kills + 1))
	why=""
	[ "$rc" -eq 1 ] || why="exit $rc"
	grep -q "worker \"$name\" (pid $victim) was terminated by signal 9" "$dir/err" ||
		why="$why; not named"
	[ "$(left_over)" -eq 0 ] || why="$why; processes left"
	grep -q '"outcome":"failed"' "$dir/s.json" 2>/dev/null || why="$why; no failed summary"
	grep -q '^  every record accounted  yes$' "$dir/err" || why="$why; not accounted"
	whole_lines "$dir/out.csv" || why="$why; half a line"
	n=$(sed -n 's/.*"records_in_flight":\([0-9]*\).*/\1/p' "$dir/s.json" 2>/dev/null)
	flight=$((flight + ${n:-0}))
	if [ -z "$why" ]; then
		kills_ok=$((kills_ok + 1))
		note kill OK
	else
		note kill BAD "round $r, $name: $why"
	fi
done
echo "kill    $kills_ok of $kills as documented; records in flight when killed: $flight in all"
fi

# ---- setup ----
if wanted setup; then
setups=0
setups_ok=0
for r in $(seq "$ROUNDS"); do
	rm -f "$dir/out.csv" "$dir/s.json"
	set -- INT TERM HUP
	shift "$(rand 3)"
	sig=$1
	env --default-signal=INT "$WMRUN" --summary "$dir/s.json" "$dir/job.conf" \
		>/dev/null 2>"$dir/err" &
	sup=$!
	delay=$(rand 60)
	sleep "0.0$(printf '%02d' "$delay")"
	kill -"$sig" "$sup"
	wait "$sup"
	rc=$?
	setups=$((setups + 1))
	case $sig in INT) want=130 ;; TERM) want=143 ;; HUP) want=129 ;; esac
	why=""
	[ "$rc" -eq "$want" ] || why="exit $rc, expected $want"
	all_gone || why="$why; processes left"
	! ls -A "$dir" | grep -q '^\.' || why="$why; a temporary file left"
	whole_lines "$dir/out.csv" || why="$why; half a line"
	if [ -z "$why" ]; then
		setups_ok=$((setups_ok + 1))
		note setup OK
	else
		note setup BAD "round $r, SIG$sig after ${delay} ms: $why"
	fi
done
echo "setup   $setups_ok of $setups as documented (SIGINT, SIGTERM, SIGHUP 0-60 ms after the start)"
fi

# ---- stop ----
if wanted stop; then
stops=0
stops_ok=0
longest=0
for r in $(seq $(((ROUNDS + 3) / 4))); do
	env --default-signal=INT "$WMRUN" "$dir/job.conf" >/dev/null 2>"$dir/err" &
	sup=$!
	until_up "$sup" 6
	sleep 0.5
	set -- $(pgrep -P "$sup")
	shift "$(rand $#)"
	victim=$1
	name=$(cat "/proc/$victim/comm" 2>/dev/null)
	kill -STOP "$victim"
	t0=$(now_ms)
	kill -INT "$sup"
	wait "$sup"
	rc=$?
	took=$(($(now_ms) - t0))
	[ "$took" -gt "$longest" ] && longest=$took
	stops=$((stops + 1))
	why=""
	[ "$rc" -eq 1 ] || why="exit $rc"
	grep -q "worker \"$name\" (pid $victim) is stopped (SIGSTOP) and did not stop" "$dir/err" ||
		why="$why; not named"
	[ "$(left_over)" -eq 0 ] || why="$why; processes left"
	if [ -z "$why" ]; then
		stops_ok=$((stops_ok + 1))
		note stop OK
	else
		note stop BAD "round $r, $name: $why"
	fi
done
echo "stop    $stops_ok of $stops as documented; longest from Ctrl-C to exit: $longest ms"
fi

# ---- reader ----
if wanted reader; then
# 20 s of results (about 2 MB) read at 8 KB/s: the sinks wait on the
# pipe, back-pressure reaches the sources, nothing is lost.
sed -e 's/^processing_time = 1 h$/processing_time = 20 s/' \
	-e 's#^path = .*#path = -#' -e 's/^rate = 2000\/s$/rate = 200\/s/' \
	"$dir/job.conf" >"$dir/slow.conf"
{
	"$WMRUN" --summary "$dir/slow.json" "$dir/slow.conf" 2>"$dir/err"
	echo $? >"$dir/rc"
} | python3 -c '
import sys, time
n = 0
while True:
    b = sys.stdin.buffer.read(1024)
    if not b:
        break
    n += b.count(b"\n")
    time.sleep(1024 / 8192)
print(n)' >"$dir/lines" &
reader=$!
peak=0
while kill -0 "$reader" 2>/dev/null; do
	for p in $(pgrep -f "$dir/slow.conf"); do
		kb=$(awk '/^VmRSS/ { print $2 }' "/proc/$p/status" 2>/dev/null)
		[ "${kb:-0}" -gt "$peak" ] && peak=$kb
	done
	sleep 0.5
done
wait "$reader"
results=$(sed -n 's/.*"results_written":\([0-9]*\).*/\1/p' "$dir/slow.json")
lines=$(cat "$dir/lines")
if [ "$(cat "$dir/rc")" -eq 0 ] && [ "$lines" -eq $((results + 1)) ]; then
	note reader OK
	echo "reader  as documented: $results results all read at 8 KB/s, peak RSS of any process $peak KiB"
else
	note reader BAD "exit $(cat "$dir/rc"), $lines lines for $results results"
	echo "reader  NOT as documented"
fi
fi

# ---- disk ----
if wanted disk; then
mkdir "$dir/small"
if mount -t tmpfs -o size=64k wmfaults "$dir/small" 2>/dev/null; then
	disks=0
	disks_ok=0
	slowest=0
	job "$dir/small/out.csv" >"$dir/disk.conf"
	for r in $(seq 5); do
		rm -f "$dir/small/out.csv"
		t0=$(now_ms)
		"$WMRUN" "$dir/disk.conf" >/dev/null 2>"$dir/err"
		rc=$?
		took=$(($(now_ms) - t0))
		[ "$took" -gt "$slowest" ] && slowest=$took
		disks=$((disks + 1))
		why=""
		[ "$rc" -eq 74 ] || why="exit $rc"
		grep -q "could not write to \"$dir/small/out.csv\" (sink \"o\"): No space left on device" "$dir/err" ||
			why="$why; no reason given"
		whole_lines "$dir/small/out.csv" || why="$why; half a line"
		if [ -z "$why" ]; then
			disks_ok=$((disks_ok + 1))
			note disk OK
		else
			note disk BAD "round $r: $why"
		fi
	done
	umount "$dir/small"
	echo "disk    $disks_ok of $disks as documented; slowest from start to exit 74: $slowest ms"
else
	echo "disk    not run (mounting a tmpfs needs root)"
fi
fi

# ---- pipe ----
if wanted pipe; then
pipes=0
pipes_ok=0
sed 's#^path = .*#path = -#' "$dir/job.conf" >"$dir/pipe.conf"
for r in $(seq 5); do
	{
		"$WMRUN" "$dir/pipe.conf" 2>"$dir/err"
		echo $? >"$dir/rc"
	} | head -n 2 >/dev/null
	pipes=$((pipes + 1))
	if [ "$(cat "$dir/rc")" -eq 74 ] && grep -q 'Broken pipe' "$dir/err"; then
		pipes_ok=$((pipes_ok + 1))
		note pipe OK
	else
		note pipe BAD "round $r: exit $(cat "$dir/rc")"
	fi
done
echo "pipe    $pipes_ok of $pipes as documented (a reader gone after two lines)"
fi

# ---- the checkpointed job of the next kinds ----
ckjob() { # ckjob OUTPUT CHECKPOINT_DIR [PROCESSING_TIME]
	cat <<CONF
[job]
processing_time = ${3:-3 s}
speed = 1
checkpoint_interval = 300 ms
checkpoint_dir = $2
checkpoints_retained = 3
restart_strategy = fixed-delay
restart_attempts = 3
restart_delay = 100 ms
[source s]
parallelism = 2
partitions = 4
rate = 500/s
keys = 16
[window w]
input = s
parallelism = 2
size = 100 ms
[sink o]
input = w
path = $1
CONF
}
results_of() { # results_of SUMMARY_TEXT -- "results written N"
	sed -n 's/^  results written *\([0-9]*\)$/\1/p' "$1"
}

# ---- lock ----
if wanted lock; then
locks=0
locks_ok=0
for r in $(seq $(((ROUNDS + 1) / 2))); do
	rm -rf "$dir/ck" "$dir/a.csv" "$dir/b.csv"
	ckjob "$dir/a.csv" "$dir/ck" >"$dir/a.conf"
	ckjob "$dir/b.csv" "$dir/ck" >"$dir/b.conf"
	"$WMRUN" --live=never "$dir/a.conf" >/dev/null 2>"$dir/a.err" &
	a=$!
	sleep "0.$(rand 3)$(rand 10)"
	"$WMRUN" --live=never "$dir/b.conf" >/dev/null 2>"$dir/b.err" &
	b=$!
	wait "$a"
	ra=$?
	wait "$b"
	rb=$?
	locks=$((locks + 1))
	why=""
	# Either may win the lock: the one that loses names the other.
	if [ "$ra" -eq 0 ] && [ "$rb" -eq 75 ]; then
		won=a lost=b holder=$a
	elif [ "$ra" -eq 75 ] && [ "$rb" -eq 0 ]; then
		won=b lost=a holder=$b
	else
		won="" why="exits $ra and $rb, expected 0 and 75"
	fi
	if [ -n "$won" ]; then
		grep -q "is in use by another job (pid $holder holds" "$dir/$lost.err" ||
			why="$why; holder not named"
		[ ! -e "$dir/$lost.csv" ] || why="$why; the refused job made its output"
		n=$(results_of "$dir/$won.err")
		[ "$(($(wc -l <"$dir/$won.csv") - 1))" -eq "${n:--1}" ] ||
			why="$why; $won's file does not hold its $n results"
	fi
	if [ -z "$why" ]; then
		locks_ok=$((locks_ok + 1))
		note lock OK
	else
		note lock BAD "round $r: $why"
	fi
done
echo "lock    $locks_ok of $locks as documented (two jobs, one checkpoint directory)"
fi

# ---- observer ----
if wanted observer; then
observers=0
observers_ok=0
slowest=0
for r in $(seq $(((ROUNDS + 3) / 4))); do
	env --default-signal=INT "$WMRUN" "$dir/job.conf" >/dev/null 2>"$dir/err" &
	sup=$!
	until_up "$sup" 7
	sleep "0.$(rand 10)"
	obs=$(pgrep -P "$sup" -x observer)
	observers=$((observers + 1))
	if [ -z "$obs" ]; then
		kill -INT "$sup"
		wait "$sup"
		note observer BAD "round $r: no observer process"
		continue
	fi
	kill -STOP "$obs"
	t0=$(now_ms)
	kill -INT "$sup"
	wait "$sup"
	rc=$?
	took=$(($(now_ms) - t0))
	[ "$took" -gt "$slowest" ] && slowest=$took
	kill -CONT "$obs" 2>/dev/null
	why=""
	[ "$rc" -eq 130 ] || why="exit $rc"
	grep -q "observer pid $obs" "$dir/err" || why="$why; observer not named"
	[ "$took" -lt 15000 ] || why="$why; $took ms from Ctrl-C to exit"
	all_gone || why="$why; processes left"
	if [ -z "$why" ]; then
		observers_ok=$((observers_ok + 1))
		note observer OK
	else
		note observer BAD "round $r: $why"
	fi
done
echo "observer $observers_ok of $observers as documented; slowest from Ctrl-C to exit: $slowest ms"
fi

# ---- teardown ----
if wanted teardown; then
futex_fails=$(dirname "$WMRUN")/tests/tools/futex_fails
if [ -x "$futex_fails" ] && "$futex_fails" all true 2>/dev/null; then
	teardowns=0
	teardowns_ok=0
	sed -e 's/^restart_attempts = 3$/restart_attempts = 1000000/' \
		-e 's/^restart_delay = 100 ms$/restart_delay = 0 s/' \
		-e 's/^processing_time = 3 s$/processing_time = 1 h/' >"$dir/failing.conf" <<CONF
$(ckjob "$dir/f.csv" "$dir/fck")
CONF
	for r in $(seq $(((ROUNDS + 1) / 2))); do
		rm -rf "$dir/fck" "$dir/f.csv"
		"$futex_fails" all "$WMRUN" --live=never "$dir/failing.conf" \
			>/dev/null 2>"$dir/err" &
		sup=$!
		sleep "0.$(rand 10)$(rand 10)"
		before=$(grep -c 'restarting from' "$dir/err")
		kill -TERM "$sup"
		wait "$sup"
		rc=$?
		after=$(grep -c 'restarting from' "$dir/err")
		teardowns=$((teardowns + 1))
		why=""
		[ "$rc" -eq 71 ] || [ "$rc" -eq 143 ] || why="exit $rc"
		[ "$after" -le $((before + 1)) ] || why="$why; $((after - before)) restarts after SIGTERM"
		[ "$(left_over)" -eq 0 ] || why="$why; processes left"
		if [ -z "$why" ]; then
			teardowns_ok=$((teardowns_ok + 1))
			note teardown OK
		else
			note teardown BAD "round $r: $why"
		fi
	done
	echo "teardown $teardowns_ok of $teardowns as documented (SIGTERM while every attempt fails)"
else
	echo "teardown not run (no futex_fails beside $WMRUN, or no seccomp here)"
fi
fi

# ---- restore ----
if wanted restore; then
restores=0
restores_ok=0
restored=0
fell_back=0
for r in $(seq "$ROUNDS"); do
	rm -rf "$dir/rck" "$dir/r.csv"
	ckjob "$dir/r.csv" "$dir/rck" >"$dir/r.conf"
	"$WMRUN" --live=never "$dir/r.conf" >/dev/null 2>"$dir/err" || {
		note restore BAD "round $r: the first run failed"
		continue
	}
	set -- "$dir"/rck/chk-*/*
	shift "$(rand $#)"
	python3 -c '
import os, sys
p, r = sys.argv[1], int(sys.argv[2])
b = bytearray(open(p, "rb").read())
if b:
    b[r % len(b)] ^= 1 << (r // 7 % 8)
open(p, "wb").write(b)' "$1" "$(rand 1000000)"
	"$WMRUN" --live=never --resume "$dir/rck" "$dir/r.conf" >/dev/null 2>"$dir/err"
	rc=$?
	restores=$((restores + 1))
	why=""
	case $rc in
	0) restored=$((restored + 1)) ;;
	65 | 66) grep -q 'checkpoint' "$dir/err" || why="exit $rc naming no checkpoint" ;;
	*) why="exit $rc" ;;
	esac
	grep -q 'skipping checkpoint' "$dir/err" && fell_back=$((fell_back + 1))
	[ "$(grep -c 'restarting from' "$dir/err")" -le 2 ] || why="$why; restarted more than twice"
	if [ -z "$why" ]; then
		restores_ok=$((restores_ok + 1))
		note restore OK
	else
		note restore BAD "round $r, ${1#"$dir/"}: $why"
	fi
done
echo "restore $restores_ok of $restores as documented; $restored resumed to the end, $fell_back passed over a damaged checkpoint"
fi

# ---- swap ----
if wanted swap; then
swaps=0
swaps_ok=0
for r in $(seq $(((ROUNDS + 3) / 4))); do
	rm -rf "$dir/sck" "$dir/sck.real" "$dir/elsewhere" "$dir/s.csv"
	mkdir "$dir/elsewhere"
	ckjob "$dir/s.csv" "$dir/sck" "5 s" >"$dir/s.conf"
	"$WMRUN" --live=never "$dir/s.conf" >/dev/null 2>"$dir/err" &
	sup=$!
	sleep "1.$(rand 10)"
	mv "$dir/sck" "$dir/sck.real" && ln -s "$dir/elsewhere" "$dir/sck"
	t0=$(now_ms)
	wait "$sup"
	rc=$?
	took=$(($(now_ms) - t0))
	swaps=$((swaps + 1))
	why=""
	[ -z "$(ls -A "$dir/elsewhere")" ] || why="written through the link"
	[ "$took" -lt 60000 ] || why="$why; $took ms to end"
	[ "$rc" -ne 70 ] && [ "$rc" -lt 128 ] || why="$why; exit $rc"
	[ "$(grep -c 'restarting from' "$dir/err")" -le 3 ] || why="$why; more restarts than its 3 attempts"
	if [ -z "$why" ]; then
		swaps_ok=$((swaps_ok + 1))
		note swap OK
	else
		note swap BAD "round $r: $why"
	fi
done
echo "swap    $swaps_ok of $swaps as documented (checkpoint directory swapped for a link mid-run)"
fi

echo "$ok runs as documented, $bad not"
[ "$bad" -eq 0 ]
