# lib.sh -- shared helpers for integration tests (sourced, not run).
#
# Each test gets its own scratch directory, removed on exit. Paths come from
# the automake harness: $WMCONFORM, $WMRUN and $WMBENCH name the binaries
# under test, $srcdir the source tree (read-only under distcheck).

set -u
: "${srcdir:=.}"
: "${WMCONFORM:=./wmconform}"
TRACES="$srcdir/tests/conformance"

scratch=$(mktemp -d "${TMPDIR:-/tmp}/wmtest.XXXXXX") || exit 99
trap 'rm -rf "$scratch"' EXIT

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# require_real WHAT PACKAGES TOOL...: skip (77) a test on WHAT, a real
# Flink or Kafka, in the sanitizer build and in `make distcheck`'s
# (configured with --disable-real-flink-tests), which leave it to the
# plain build (CI runs the suite more than once, and these tests add
# minutes of JVMs), and where a TOOL is missing (the Debian PACKAGES
# bring them).
require_real() {
	what=$1 packages=$2
	shift 2
	if [ "${WM_SANITIZERS:-no}" = yes ]; then
		echo "SKIP: the sanitizer build leaves $what to the plain build"
		exit 77
	fi
	if [ "${WM_REAL_FLINK_TESTS:-yes}" = no ]; then
		echo "SKIP: configured with --disable-real-flink-tests (make distcheck: the plain build runs it)"
		exit 77
	fi
	for tool in "$@"; do
		command -v "$tool" >/dev/null 2>&1 || {
			echo "SKIP: no $tool for $what (apt-get install $packages)"
			exit 77
		}
	done
}

# skip_without TOOL... -- skip (77) a test that needs TOOL where it is
# not installed, saying which.
skip_without() {
	for tool in "$@"; do
		command -v "$tool" >/dev/null || {
			echo "skipped: $tool is not installed"
			exit 77
		}
	done
}

# expect_status WANT CMD... -- run CMD, output to $scratch/out, check status.
expect_status() {
	want=$1
	shift
	"$@" >"$scratch/out" 2>"$scratch/err"
	got=$?
	[ "$got" -eq "$want" ] || {
		cat "$scratch/out" "$scratch/err" >&2
		fail "\"$*\" exited $got, expected $want"
	}
}

# expect_line PATTERN FILE -- FILE has a line matching the extended regex.
expect_line() {
	grep -Eq -- "$1" "$2" || {
		cat "$2" >&2
		fail "no line matching /$1/ in $2"
	}
}

: "${WMRUN:=./wmrun}"
# A prefix for a job started in the background that the test will
# interrupt: a shell without job control starts background commands with
# SIGINT ignored, and wmrun keeps what its caller ignored; this gives it
# SIGINT at its default, as a terminal's foreground job has it.
INTERRUPTIBLE="env --default-signal=INT"
: "${WMBENCH:=./wmbench}"
EXAMPLES="$srcdir/examples"

# interrupt PID -- Ctrl-C for the wmrun running as PID: it must stop with
# 130 (its stderr is $scratch/err).
interrupt() {
	kill -INT "$1"
	ended_with "$1" 130
}

# ended_with PID STATUS -- the job PID, started in the background with its
# stderr in $scratch/err, ends with STATUS.
ended_with() {
	wait "$1"
	got=$?
	[ "$got" -eq "$2" ] || {
		cat "$scratch/err" >&2
		fail "exit status $got, expected $2"
	}
}

# window_results CSV -- a window sink's results (key, window, count,
# late_firing) sorted, without when each fired (fire_time, watermark):
# what a run must give whatever its restarts, which change those and the
# order the results were written in.
window_results() {
	cut -d, -f1-4,7 "$1" | sort
}

# comparable_summary ERR -- a --sim summary (standard error) as two runs
# of one job must agree on it: the topology's path as TOPOLOGY, the wall
# clock the simulation took as T.
comparable_summary() {
	sed -e 's/^\(wmrun: \)\{0,1\}[^ ]*\.conf/TOPOLOGY/' \
		-e 's/ simulated in [^)]*)$/ simulated in T)/' "$1"
}

# max_fire_delay CSV FROM TO -- the largest fire_time - window_end, in ms,
# over results whose window starts in [FROM, TO) (CSV from a sink with
# aggregates count, sum: fire_time is column 6, window_end column 3).
max_fire_delay() {
	awk -F, -v from="$2" -v to="$3" \
		'NR > 1 && $2 >= from && $2 < to { d = $6 - $3; if (d > m) m = d }
		 END { print m + 0 }' "$1"
}

# await WHAT CMD... -- run CMD every 50 ms until it succeeds; fail the test
# naming WHAT if that takes more than 60 s (a loaded machine, never a
# timing assumption).
await() {
	what=$1
	shift
	tries=0
	until "$@"; do
		tries=$((tries + 1))
		[ "$tries" -le 1200 ] || fail "$what: not within 60 s"
		sleep 0.05
	done
}

# start_prometheus PORT -- a real Prometheus server (Debian's
# prometheus) on loopback, with storage of its own in $scratch, scraping
# the endpoint at 127.0.0.1:PORT every second: its pid in $server, the
# port of its HTTP API in $api. The test's EXIT trap must call
# stop_prometheus. Returns once the server answers; fails the test, with
# the server's log, if it ends first.
start_prometheus() {
	# A free port for the API, given back at once: another process may
	# take it first, and then the server fails to start and says so.
	api=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	cat >"$scratch/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: wmrun
    static_configs:
      - targets: ['127.0.0.1:$1']
YML
	prometheus --config.file="$scratch/prometheus.yml" \
		--storage.tsdb.path="$scratch/tsdb" \
		--web.listen-address="127.0.0.1:$api" --log.level=warn \
		>"$scratch/prometheus.log" 2>&1 &
	server=$!
	await "the Prometheus server" prometheus_ready
}

# stop_prometheus -- the server of start_prometheus stopped, if running.
stop_prometheus() {
	[ -z "${server:-}" ] || { kill "$server"; wait "$server"; }
	server=""
}

# prometheus_ready -- the server of start_prometheus answers (fails the
# test if it ended).
prometheus_ready() {
	kill -0 "$server" 2>/dev/null || {
		cat "$scratch/prometheus.log" >&2
		server=""
		fail "prometheus ended first"
	}
	curl -sf "http://127.0.0.1:$api/-/ready" >/dev/null
}

# has_results CSV -- CSV holds its header and at least one result.
has_results() {
	[ "$({ wc -l <"$1"; } 2>/dev/null || echo 0)" -gt 1 ]
}

# running_with_results PID CSV -- the job PID is still running and has
# written a result to CSV (fails the test if it ended first).
running_with_results() {
	kill -0 "$1" 2>/dev/null || {
		cat "$scratch/err" >&2
		fail "wmrun ended before a window fired"
	}
	has_results "$2"
}

# workers_up PID N -- the job PID has N worker processes (its observer,
# which shows the job, not counted).
workers_up() {
	[ "$(pgrep -l -P "$1" | grep -vc ' observer$')" -ge "$2" ]
}

# quiet_partition_job SPEED RESULTS [FROM TO END] -- four partitions read
# by two source subtasks, partition 3 silent from 1 h (FROM) to 3 h (TO)
# of processing time with no idle timeout (so it holds its subtask and the
# window for those two hours), four hours (END) in all at SPEED, results
# to RESULTS.
quiet_partition_job() {
	cat <<CONF
[job]
name = one-quiet-partition
event_time = ${5:-4 h}
speed = $1
[source events]
parallelism = 2
partitions = 4
rate = 1/s
silence = 3 from ${3:-1 h} to ${4:-3 h}
[window counts]
input = events
size = 10 min
[sink out]
input = counts
path = $2
CONF
}

# quiet_join_job SPEED -- an interval join (between -1 s and 1 s) of
# `left`, 2 partitions, and `right`, 1 partition silent from 30 min to
# 90 min of 2 h, each 2 records/s over 5 keys, at SPEED, its pairs to
# /dev/null: the right input holds the join through the silence.
quiet_join_job() {
	cat <<CONF
[job]
name = quiet-join
event_time = 2 h
speed = $1
seed = 7
[source left]
partitions = 2
rate = 2/s
keys = 5
[source right]
partitions = 1
rate = 2/s
keys = 5
silence = 0 from 30 min to 90 min
[join pairs]
left = left
right = right
between = -1 s, 1 s
[sink out]
input = pairs
path = /dev/null
CONF
}

# checkpoint_job NAME CHECKPOINTS [INTERVAL] [EVENT_TIME] -- a job in
# $scratch/NAME.conf: EVENT_TIME (10 min) of processing time at speed 200
# (10 min: 3 s of real time), 4 partitions at 10 records/s, 5 keys, 10 s
# windows (300 results in 10 min), a checkpoint every INTERVAL (20 s) of
# processing time into CHECKPOINTS, 2 retained; results in
# $scratch/NAME.csv. A generated source stamps each record with its
# processing time, so a window's end is about when it fires.
checkpoint_job() {
	cat >"$scratch/$1.conf" <<CONF
[job]
name = checkpoint-job
event_time = ${4:-10 min}
speed = 200
checkpoint_interval = ${3:-20 s}
checkpoint_dir = $2
checkpoints_retained = 2
[source events]
parallelism = 2
partitions = 4
rate = 10/s
keys = 5
[window counts]
input = events
parallelism = 2
size = 10 s
aggregates = count, sum
[sink out]
input = counts
parallelism = 2
path = $scratch/$1.csv
CONF
}

# flood_job RESULTS -- a job that floods source -> keyBy -> window over
# small rings (every ring full most of the time), its results to RESULTS,
# for tests that stop or break it while it runs.
flood_job() {
	cat <<CONF
[job]
ring_size = 2 KiB
[source s]
parallelism = 1
partitions = 2
rate = unlimited
keys = 64
[keyby k]
input = s
parallelism = 1
[window w]
input = k
parallelism = 1
size = 1 ms
[sink o]
input = w
parallelism = 1
path = $1
CONF
}

# start_job CONF RESULTS [OPTION...] -- wmrun OPTION... CONF in the
# background (SIGINT at its default, as a terminal's foreground job has
# it; its output in $scratch/out and err), its pid in $sup, watched
# (watch_job); returns once it has written a result to RESULTS.
start_job() {
	conf=$1 results=$2
	shift 2
	$INTERRUPTIBLE "$WMRUN" "$@" "$conf" >"$scratch/out" 2>"$scratch/err" &
	sup=$!
	watch_job "$sup"
	await "a result" running_with_results "$sup" "$results"
}

# worker_of PID NAME -- the pid of the job PID's worker NAME ("stage/i");
# fails the test if it has none (in $(...): add || exit 1).
worker_of() {
	pgrep -P "$1" -x "$2" || fail "no worker named $2"
}

# start_watchdog PID SECONDS -- SIGKILL the job PID after SECONDS, so that a
# hung job fails the test instead of hanging it; its pid in $watchdog. The
# kill goes only to this shell's child: a job that ended long ago may have
# given its pid to another process (a job restarting in a loop beside it
# goes through pids fast), which a stale watchdog must not kill. A child
# that has ended keeps its pid until this shell reaps it.
start_watchdog() {
	(
		sleep "$2"
		ppid=$(sed 's/.*) //' "/proc/$1/stat" | cut -d' ' -f2)
		[ "$ppid" = "$$" ] && kill -9 "$1"
	) >/dev/null 2>&1 &
	watchdog=$!
}

# watch_job PID -- a watchdog of 120 s for the job PID, and its workers
# killed when the test ends.
watch_job() {
	start_watchdog "$1" 120
	trap 'kill "$watchdog" 2>/dev/null; pkill -9 -P '"$1"' 2>/dev/null; rm -rf "$scratch"' EXIT
}

# sweep_rows CSV N -- a --sweep-csv of N rows (and its header), every run
# exited 0 and accounted for every record.
sweep_rows() {
	[ "$(wc -l <"$1")" -eq $(($2 + 1)) ] || fail "$1 has not $2 rows"
	[ "$(grep -c ',true,0$' "$1")" -eq "$2" ] ||
		fail "a run of $1 failed or did not account for every record"
}

# stall_law CSV P TOL -- every row of a --sweep-csv of
# examples/study_stall_law.conf (or a sweep of it) has a stall_fraction
# within TOL of the stall law for its n (events.partitions, else 16),
# parallelism (events.parallelism, else 1) and mode (events.watermark_at,
# else split), each partition silent a fraction P: 1-(1-P)^n per split,
# 1-(1-P^k)^(n/k) per subtask with k = n / parallelism. Prints each row
# beside its law (the table the doc and the closing note give).
stall_law() {
	awk -F, -v p="$2" -v tol="$3" '
	NR == 1 {
		for (i = 1; i <= NF; i++)
			col[$i] = i
		if (!("stall_fraction" in col)) {
			print "no stall_fraction column" >"/dev/stderr"
			exit 2
		}
		next
	}
	{
		n = "events.partitions" in col ? $col["events.partitions"] : 16
		par = "events.parallelism" in col ? $col["events.parallelism"] : 1
		mode = "events.watermark_at" in col ? $col["events.watermark_at"] : "split"
		k = mode == "subtask" ? n / par : 1
		law = 1 - (1 - p ^ k) ^ (n / k)
		got = $col["stall_fraction"]
		d = got - law
		printf "%-8s n %2d parallelism %2d: stall %.4f, law %.4f (%+.4f)\n",
			mode, n, par, got, law, d
		if (d > tol || d < -tol)
			bad++
	}
	END { exit bad > 0 }' "$1"
}

# positive PREFIX -- one line of wmbench's output ($scratch/out) starts
# with PREFIX, and every median=, min=, max=, value= and ratio= on it is
# above zero.
positive() {
	grep -E -- "^$1 " "$scratch/out" >"$scratch/line" ||
		{ cat "$scratch/out" >&2; fail "no line \"$1 ...\""; }
	[ "$(wc -l <"$scratch/line")" -eq 1 ] || fail "\"$1\" printed twice"
	awk '{ for (i = 2; i <= NF; i++) if ($i ~ /^(median|min|max|value|ratio)=/) {
		n++; split($i, kv, "="); if (!(kv[2] + 0 > 0)) bad = 1 } }
	     END { exit bad || n == 0 }' "$scratch/line" ||
		fail "not every value is positive: $(cat "$scratch/line")"
}

# busy_loops N -- start N busy loops beside the job, as a loaded machine
# has; their pids in $busy, for the test's trap to kill (stop_busy_loops).
busy_loops() {
	busy=
	i=0
	while [ "$i" -lt "$1" ]; do
		sh -c 'while :; do :; done' &
		busy="$busy $!"
		i=$((i + 1))
	done
}
stop_busy_loops() {
	# shellcheck disable=SC2086 # one pid a word
	[ -z "${busy:-}" ] || kill $busy 2>/dev/null
	busy=
}

# reseal_checkpoint DIR -- make the checksums of checkpoint DIR (each
# blob's CRC-32C and length in the manifest, and the manifest's own CRC)
# match the bytes again after a test changed them, as a forger would: what
# the restore then reads is bad data the checksums no longer catch.
reseal_checkpoint() {
	python3 - "$1" <<'PY' || fail "could not reseal checkpoint $1"
import sys
def crc32c(data):
    crc = 0xffffffff
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82f63b78 if crc & 1 else 0)
    return crc ^ 0xffffffff
d = sys.argv[1]
body = ""
for l in open(d + "/_metadata").read().splitlines(True):
    if l.startswith("crc32c "):
        break
    if l.startswith("blob "):
        i = l.split()[1]
        blob = open(d + "/subtask-" + i, "rb").read()
        l = "blob %s %d %08x\n" % (i, len(blob), crc32c(blob))
    body += l
open(d + "/_metadata", "w").write(body + "crc32c %08x\n" % crc32c(body.encode()))
PY
}

# mutate_checkpoint DIR SEED [committer] -- change one subtask's blob of
# checkpoint DIR at random (SEED: bytes flipped, the blob cut short or
# grown, a count or a length overwritten), or the file committer's blob
# (the last), then reseal it (reseal_checkpoint); prints what it changed.
mutate_checkpoint() {
	python3 - "$1" "$2" "${3:-subtask}" <<'PY' || fail "could not mutate $1"
import os, random, struct, sys
d, seed, which = sys.argv[1], int(sys.argv[2]), sys.argv[3]
rnd = random.Random(seed)
# The subtasks' snapshots; the last blob is the file committer's.
blobs = sorted((n for n in os.listdir(d) if n.startswith("subtask-")),
               key=lambda n: int(n[len("subtask-"):]))
name = blobs[-1] if which == "committer" else rnd.choice(blobs[:-1])
blob = bytearray(open(d + "/" + name, "rb").read())
kind = rnd.randrange(6)
at = rnd.randrange(max(len(blob), 1))
if kind == 0:        # a few bytes flipped
    for _ in range(rnd.randint(1, 4)):
        i = rnd.randrange(len(blob))
        blob[i] ^= 1 << rnd.randrange(8)
elif kind == 1:      # cut short
    del blob[at:]
elif kind == 2:      # grown
    blob[at:at] = bytes(rnd.randrange(256) for _ in range(rnd.randint(1, 16)))
elif kind == 3:      # a u64 (a count, a length, a time) overwritten
    v = rnd.choice([0, 1, 2**63 - 1, 2**63, 2**64 - 1, rnd.randrange(2**64),
                    rnd.randrange(1, 1000)])
    blob[at:at + 8] = struct.pack("<Q", v)
elif kind == 4:      # a u32 (a count, a tag's version) overwritten
    blob[at:at + 4] = struct.pack("<I", rnd.choice([0, 1, 7, 2**31, 2**32 - 1,
                                                    rnd.randrange(2**32)]))
else:                # an aligned u64 moved by a little: counts off by one
    at -= at % 8
    if at + 8 <= len(blob):
        v = struct.unpack("<Q", bytes(blob[at:at + 8]))[0]
        blob[at:at + 8] = struct.pack("<Q", (v + rnd.choice([-2, -1, 1, 2])) % 2**64)
open(d + "/" + name, "wb").write(blob)
print("%s kind %d at %d" % (name, kind, at))
PY
	reseal_checkpoint "$1"
}

# summary_alerts SUMMARY.json -- the summary's alerts, one a line (each
# cut at its first '}': an alert holds no object).
summary_alerts() {
	sed 's/{"at_ms":/\n&/g' "$1" | grep '^{"at_ms":' | sed 's/}.*//'
}

# alert_field LINE NAME -- a number or string field of one alert line.
alert_field() {
	echo "$1" | sed "s/.*\"$2\":\"*\\([^\",]*\\).*/\\1/"
}

# lags_within MAX_MS METRICS [SUMMARY]: every watermarkLag and
# currentEmitEventTimeLag sample of METRICS (a --metrics file), and the
# fire delays of SUMMARY (a --summary file) if given, lie in [0, MAX_MS],
# and there is one of each: lags on the job's clock, not years off it.
lags_within() {
	python3 - "$@" <<'PY' || fail "lags off the job's clock"
import json, sys
limit, metrics = int(sys.argv[1]), sys.argv[2]
lags = {"watermarkLag": [], "currentEmitEventTimeLag": []}
for line in open(metrics):
    sample = json.loads(line)
    for name, seen in lags.items():
        if name in sample:
            seen.append(sample[name])
            if not 0 <= sample[name] <= limit:
                print("out of range:", line.strip()[:600])
if len(sys.argv) > 3:
    delays = json.load(open(sys.argv[3]))["fire_delay_ms"]
    lags["fire delay"] = [delays["p50"], delays["max"]]
for name, seen in lags.items():
    bad = [v for v in seen if not 0 <= v <= limit]
    if not seen or bad:
        sys.exit("%s: %d samples, out of [0, %d] ms: %s"
                 % (name, len(seen), limit, bad[:5]))
    print(name, "samples", len(seen), "max", max(seen))
PY
}
