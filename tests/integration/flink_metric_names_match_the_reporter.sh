#!/bin/sh
# wmrun's Prometheus endpoint against Flink's own PrometheusReporter on the
# same job: the job is exported with --export-flink and run on Flink's
# MiniCluster with the reporter (-Dwmrun.prometheus=PORT), while wmrun runs
# it for real with --prometheus. Both are scraped at a settled moment: every
# partition has sent its records, the watermarks stand at each split's
# largest timestamp less the bound less 1, and the trace's last records are
# still far off. Then every sample wmrun exposes under a Flink name must be
# in Flink's exposition, in the same family, with the same label names and
# the same job, task, operator, subtask and split; watermarks and record
# counts must be equal (and the watermarks the ones the trace gives). The
# families are those of the table in doc/semantics.md section 9.4, which
# must list exactly the ones wmrun exposes here.
#
# Flink's values that are not compared, and why: rates and time shares
# (they depend on when each side was scraped), watermarkLag (Flink's is
# wall-clock time less the watermark, wmrun's the job's processing time
# less it: doc/semantics.md 9.4), and the numRecordsOut of a window with
# several chained outputs, where Flink leaves out the main output's
# records (checked to be fewer than wmrun's).
#
# Skipped (77) as flink_lib.sh's flink_require says, or without curl and
# python3.
. "$srcdir/tests/lib/lib.sh"
. "$srcdir/tests/lib/flink_lib.sh"
flink_require
for tool in curl python3; do
	command -v "$tool" >/dev/null || {
		echo "SKIP: $tool is not installed"
		exit 77
	}
done

flink="" job=""
trap '[ -z "$flink" ] || kill -- -"$flink" 2>/dev/null
[ -z "$job" ] || kill "$job" 2>/dev/null
rm -rf "$scratch"' EXIT

# Two partitions of 20 records each, in the first 2 s (partition 1 runs
# 3 s ahead in event time), a record of partition 0 at 3 s that is late
# by far (timestamp 500: every window holding it closed 1 s before), then
# nothing until 40 s, when each partition repeats its largest timestamp,
# which moves no watermark. Between them, the settled moment: splits at
# 4800 - 1000 - 1 and 7900 - 1000 - 1, everything downstream at the
# smaller.
quiet=40000
awk -v quiet=$quiet 'BEGIN {
	print "partition,timestamp,key,value,arrival"
	for (i = 0; i < 40; i++)
		printf "%d,%d,%d,%d,%d\n", i % 2, 1000 + i * 100 + (i % 2) * 3000,
			i % 5, 1 + i % 7, 100 + i * 50
	print "0,500,3,9,3000"
	printf "0,4800,1,1,%d\n1,7900,1,1,%d\n", quiet, quiet
}' >"$scratch/trace.csv"
want0=3799 want1=6899

# A keyed stage into two windows: "counts" with a late side output and two
# sinks (a task of four operators in Flink), "totals" with one sink, whose
# late record is dropped.
conf() {
	cat <<CONF
[job]
name = settled-metrics
[source events]
parallelism = 2
partitions = 2
replay = $scratch/trace.csv
pacing = arrival
out_of_orderness = 1 s
watermark_interval = 200 ms
[keyby k]
input = events
parallelism = 1
[window counts]
input = k
size = 2 s
aggregates = count, sum
late_output = $scratch/$1.late
[sink out]
input = counts
path = $scratch/$1.out
[sink also]
input = counts
path = $scratch/$1.also
[window totals]
input = k
size = 3 s
aggregates = sum
[sink sums]
input = totals
path = $scratch/$1.sums
CONF
}
conf flink >"$scratch/flink.conf"
conf wmrun >"$scratch/wmrun.conf"
expect_status 0 "$WMRUN" --export-flink "$scratch/project" "$scratch/flink.conf"
# Built with the reporter's profile, so that its jar is in the cache.
maven "$scratch/project" "$scratch/mvn.log" package -Dwmrun.prometheus=0 ||
	fail "the Maven project does not build with the reporter"

cat >"$scratch/expo.py" <<'PY'
import re, sys

SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)\{(.*)\} (\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?')

def parse(path):
    """family -> [(labels dict, value)] of an exposition text."""
    fams = {}
    for line in open(path):
        m = SAMPLE.match(line.strip())
        if not m:
            continue
        labels = dict(LABEL.findall(m.group(2)))
        fams.setdefault(m.group(1), []).append((labels, float(m.group(3))))
    return fams

OP = 'flink_taskmanager_job_task_operator_'

def settled(path, want0, want1):
    """Each split's watermark, each source subtask's (one split each) and
    each window's input at the values the trace gives, and every record
    but the last two in each window, the late one dropped (0: yes)."""
    f = parse(path)
    splits = {l.get('split'): v for l, v in f.get(OP + 'split_watermark_currentWatermark', [])}
    src = sorted(v for l, v in f.get(OP + 'currentOutputWatermark', [])
                 if l.get('operator_name') == 'Source:_events')
    win = [v for l, v in f.get(OP + 'currentInputWatermark', [])
           if l.get('operator_name') in ('counts', 'totals')]
    late = [v for l, v in f.get(OP + 'numLateRecordsDropped', [])
            if l.get('operator_name') == 'totals']
    read = [v for l, v in f.get(OP + 'numRecordsIn', [])
            if l.get('operator_name') in ('counts', 'totals')]
    return 0 if (splits == {'events_0': want0, 'events_1': want1} and late == [1]
                 and read == [41, 41]
                 and src == sorted([want0, want1]) and len(win) == 2
                 and all(v == min(want0, want1) for v in win)) else 1

# The labels that say which series it is: Flink draws its ids at random,
# and host and tm_id name the machine and process.
KEY = ('job_name', 'task_name', 'subtask_index', 'task_attempt_num',
       'operator_name', 'split')
EXACT = ('Watermark', 'numRecordsIn', 'numRecordsOut', 'numLateRecordsDropped',
         'accumulatedIdleTimeMs', 'accumulatedPausedTimeMs', 'numRestarts')
# With several outputs chained to it, Flink's numRecordsOut of an operator
# leaves out its main output's records (doc/semantics.md 9.4): fewer than
# wmrun's, which counts what it emitted.
FLINK_FEWER = {(OP + 'numRecordsOut', 'counts')}

def compare(wm_path, fl_path, doc_path):
    wm, fl = parse(wm_path), parse(fl_path)
    errors = []
    text = open(doc_path).read()
    table = text[text.index('<!-- reporter table -->'):
                 text.index('<!-- end of reporter table -->')]
    documented = set(re.findall(r'^\| `(flink_[A-Za-z_]+)`', table, re.M))
    exposed = {f for f in wm if f.startswith('flink_')}
    for f in sorted(exposed - documented):
        errors.append('%s: exposed, not in the table of doc/semantics.md' % f)
    for f in sorted(documented - exposed):
        errors.append('%s: in the table of doc/semantics.md, not exposed' % f)
    for fam in sorted(exposed):
        if fam not in fl:
            errors.append('%s: no such family in Flink\'s exposition' % fam)
            continue
        for labels, value in wm[fam]:
            key = {k: labels[k] for k in KEY if k in labels}
            same = [(l, v) for l, v in fl[fam]
                    if {k: l.get(k) for k in key} == key
                    and set(k for k in KEY if k in l) == set(key)]
            if len(same) != 1:
                errors.append('%s%s: %d samples in Flink\'s' % (fam, key, len(same)))
                continue
            l, v = same[0]
            if set(l) != set(labels):
                errors.append('%s%s: label names %s, Flink\'s %s'
                              % (fam, key, sorted(labels), sorted(l)))
            if (fam, labels.get('operator_name')) in FLINK_FEWER:
                if not v < value:
                    errors.append('%s%s: Flink now counts %g, wmrun %g'
                                  % (fam, key, v, value))
            elif any(fam.endswith(e) for e in EXACT) and v != value:
                errors.append('%s%s: wmrun %g, Flink %g' % (fam, key, value, v))
    for e in errors:
        print(e)
    n = sum(len(s) for f, s in wm.items() if f.startswith('flink_'))
    print('%d samples of %d families compared' % (n, len(exposed)))
    return 1 if errors else 0

if sys.argv[1] == 'settled':
    sys.exit(settled(sys.argv[2], float(sys.argv[3]), float(sys.argv[4])))
sys.exit(compare(sys.argv[2], sys.argv[3], sys.argv[4]))
PY

# Flink on the MiniCluster, in a process group of its own (Maven's JVM
# and the job's), with its reporter on a free port (taken back at once: a
# race with another process is possible, and then the job fails).
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
setsid sh -c 'cd "$1" && exec timeout 300 mvn -B -q -o exec:exec \
	-Dwmrun.prometheus="$2" >"$3/flink.log" 2>&1' \
	sh "$scratch/project" "$port" "$scratch" &
flink=$!
"$WMRUN" --live=never --prometheus 0 "$scratch/wmrun.conf" \
	2>"$scratch/wmrun.err" &
job=$!

# scraped NAME PID URL: NAME's exposition at URL shows the settled
# watermarks (into $scratch/NAME.prom); fails the test if NAME ended.
scraped() {
	kill -0 "$2" 2>/dev/null || {
		cat "$scratch/$1.log" "$scratch/$1.err" 2>/dev/null >&2
		fail "$1 ended before its exposition showed the settled watermarks and counts (under Flink's names)"
	}
	curl -sf "$3" >"$scratch/$1.tmp" 2>/dev/null &&
		python3 "$scratch/expo.py" settled "$scratch/$1.tmp" $want0 $want1 &&
		mv "$scratch/$1.tmp" "$scratch/$1.prom"
}
await "Flink's reporter to show the settled watermarks" \
	scraped flink "$flink" "http://127.0.0.1:$port/metrics"
wm_port() {
	sed -n 's|^wmrun: Prometheus metrics at http://127\.0\.0\.1:\([0-9]*\)/metrics$|\1|p' \
		"$scratch/wmrun.err"
}
wm_ready() { [ -n "$(wm_port)" ]; }
await "wmrun's endpoint" wm_ready
await "wmrun's endpoint to show the settled watermarks" \
	scraped wmrun "$job" "http://127.0.0.1:$(wm_port)/metrics"

python3 "$scratch/expo.py" compare "$scratch/wmrun.prom" "$scratch/flink.prom" \
	"$srcdir/doc/semantics.md" ||
	fail "wmrun's exposition differs from Flink's reporter's"

# Both end when the trace does.
wait "$job" || fail "wmrun failed: $(cat "$scratch/wmrun.err")"
job=""
wait "$flink" || {
	cat "$scratch/flink.log" >&2
	fail "the Flink job failed"
}
flink=""
exit 0
