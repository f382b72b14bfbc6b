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
#
# Not part of `make check` (it takes minutes); run it by hand, as root for
# the tmpfs:  sh tests/faults/campaign.sh _build/wmrun 20
set -u
WMRUN=${1:?usage: campaign.sh WMRUN [ROUNDS]}
ROUNDS=${2:-20}
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

# ---- setup ----
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
	i=0
	while [ "$(left_over)" -ne 0 ] && [ $i -lt 100 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	[ "$(left_over)" -eq 0 ] || why="$why; processes left"
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

# ---- stop ----
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

# ---- reader ----
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

# ---- disk ----
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

# ---- pipe ----
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

echo "$ok runs as documented, $bad not"
[ "$bad" -eq 0 ]
