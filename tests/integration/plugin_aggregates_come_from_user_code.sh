#!/bin/sh
# aggregates = plugin:NAME(ARGS): a user's aggregate function in C
# (wmrun/plugin.h), from the shared library [job] plugin names.
#   - quantile (plugins/quantile.c) gives each tumbling window's exact
#     nearest-rank quantiles, computed here from the trace by sorting,
#     under --sim and in a real run, in CSV and in JSON lines;
#   - on merging session windows, quantile(1) is the max and a quantile
#     below 1/count the min, in every result;
#   - across a crash with checkpoints, under --sim and in a real run,
#     the accumulators come back: the results are those of a whole run;
#   - examples/plugin_aggregates.conf loads quantile shipped with wmrun
#     (plugin = wmrun:quantile): 240 windows' medians and 99th
#     percentiles, the same with its crash at 40 min as without;
#   - an aggregate that crashes takes its worker down, named (exit 1);
#     with checkpoints and a restart strategy the job restarts from its
#     checkpoints, and gives up as the strategy says;
#   - refused at their line and column (exit 78): an unknown function,
#     arguments it refuses, a fifth plugin aggregate, no [job] plugin,
#     an unclosed argument list; and the export.
. "$srcdir/tests/lib/lib.sh"

quantile="$PLUGINS/libquantile.so"

# A trace of 3000 records over 2 partitions, 7 keys, one every 20 ms of
# event time from 1 s on, up to 60 ms out of order (a 100 ms bound leaves
# none late), values from -300 to 699, some repeated.
awk 'BEGIN {
	print "partition,timestamp,key,value,arrival"
	for (i = 0; i < 3000; i++) {
		t = 1000 + i * 20
		printf "%d,%d,%d,%d,%d\n", i % 2, t - (i * 7919) % 4 * 20,
			(i * 3) % 7, (i * 7919) % 1000 - 300, t
	}
}' >"$scratch/trace.csv"

# conf WINDOW_LINES AGGREGATES [JOB LINES]: the trace through one window.
conf() {
	cat <<CONF
[job]
name = quantiles
plugin = $quantile
${3:-}
[source s]
partitions = 2
replay = $scratch/trace.csv
pacing = arrival
out_of_orderness = 100 ms
[window w]
input = s
$1
aggregates = $2
[sink out]
input = w
path = $scratch/out.csv
CONF
}

# The oracle: per key and 1 s window, the count and the nearest-rank
# quantiles 0.5, 0.99 and 1 of the trace's values, sorted by key and
# window.
awk -F, 'NR > 1 {
	w = int($2 / 1000) * 1000
	print $3 "," w "," $4
}' "$scratch/trace.csv" | LC_ALL=C sort -t, -k1,1n -k2,2n -k3,3n |
	awk -F, '
	function flush(   r50, r99) {
		if (n == 0) return
		r50 = int(n * 0.5); if (r50 < n * 0.5) r50++
		r99 = int(n * 0.99); if (r99 < n * 0.99) r99++
		printf "%s,%d,%d,%d,%d\n", k, n, v[r50], v[r99], v[n]
	}
	{
		if ($1 "," $2 != k) { flush(); k = $1 "," $2; n = 0 }
		v[++n] = $3
	}
	END { flush() }' >"$scratch/want"
[ "$(wc -l <"$scratch/want")" -ge 300 ] || fail "the oracle has few windows"

aggs='count, plugin:quantile(0.5), plugin:quantile(0.99), plugin:quantile(1)'
conf 'size = 1 s' "$aggs" 'event_time = 70 s' >"$scratch/tumbling.conf"
# got CSV: the results as the oracle writes them.
got() {
	head -1 "$1" | grep -qx 'key,window_start,window_end,count,quantile,quantile_2,quantile_3,fire_time,watermark,late_firing' ||
		{ head -1 "$1" >&2; fail "$1: not the header of the plugin's columns"; }
	awk -F, 'NR > 1 { print $1 "," $2 "," $4 "," $5 "," $6 "," $7 }' "$1" |
		LC_ALL=C sort -u -t, -k1,1n -k2,2n
}
expect_status 0 "$WMRUN" --sim "$scratch/tumbling.conf"
expect_line '^  every record accounted  yes$' "$scratch/err"
got "$scratch/out.csv" >"$scratch/sim"
cmp -s "$scratch/want" "$scratch/sim" ||
	{ diff "$scratch/want" "$scratch/sim" | head >&2; fail "--sim's quantiles are not the trace's"; }
sed 's/^name = quantiles$/&\nspeed = 20/' "$scratch/tumbling.conf" >"$scratch/real.conf"
expect_status 0 timeout 120 "$WMRUN" --live=never "$scratch/real.conf"
expect_line '^  every record accounted  yes$' "$scratch/err"
got "$scratch/out.csv" >"$scratch/real"
cmp -s "$scratch/want" "$scratch/real" ||
	{ diff "$scratch/want" "$scratch/real" | head >&2; fail "a real run's quantiles are not the trace's"; }
# JSON lines name each column.
sed 's|^path = .*|&\nformat = jsonl|' "$scratch/tumbling.conf" >"$scratch/json.conf"
expect_status 0 "$WMRUN" --sim "$scratch/json.conf"
head -1 "$scratch/out.csv" |
	grep -Eq '^\{"key":[0-9]+,"window_start":-?[0-9]+,"window_end":-?[0-9]+,"count":[0-9]+,"quantile":-?[0-9]+,"quantile_2":-?[0-9]+,"quantile_3":-?[0-9]+,"fire_time"' ||
	{ head -1 "$scratch/out.csv" >&2; fail "JSON lines do not name the plugin's columns"; }

# Sessions merge accumulators: quantile(1) is the max, quantile(1e-9)
# the min, whatever merged.
conf 'type = session
gap = 150 ms' 'count, min, max, plugin:quantile(1), plugin:quantile(0.000000001)' \
	'event_time = 70 s' >"$scratch/session.conf"
expect_status 0 "$WMRUN" --sim "$scratch/session.conf"
awk -F, 'NR > 1 {
	n++
	if ($4 > 1) merged++
	if ($7 != $6 || $8 != $5) { print "row " NR ": " $0; bad++ }
} END {
	if (bad || merged < 10) { print n " sessions, " merged " of several records, " bad " wrong"; exit 1 }
}' "$scratch/out.csv" >&2 || fail "a merged session's quantiles are not its max and min"

# A crash with checkpoints, under --sim and in a real run: the windows'
# accumulators come back from the checkpoint, and the results are the
# whole run's.
for run in sim real; do
	sed "s|^name = quantiles$|&\ncheckpoint_interval = 5 s\ncheckpoint_dir = $scratch/$run.ck\nfail_at = 37 s|" \
		"$scratch/tumbling.conf" >"$scratch/$run.crash.conf"
done
sed -i 's/^name = quantiles$/&\nspeed = 20/' "$scratch/real.crash.conf"
expect_status 0 "$WMRUN" --sim "$scratch/sim.crash.conf"
expect_line '^  every record accounted  yes$' "$scratch/err"
expect_line '^  restart                 at 37.0 s, from chk-' "$scratch/err"
got "$scratch/out.csv" >"$scratch/sim.crash"
cmp -s "$scratch/want" "$scratch/sim.crash" ||
	{ diff "$scratch/want" "$scratch/sim.crash" | head >&2; fail "--sim's quantiles changed across the crash"; }
expect_status 0 timeout 120 "$WMRUN" --live=never "$scratch/real.crash.conf"
expect_line '^  every record accounted  yes$' "$scratch/err"
got "$scratch/out.csv" >"$scratch/real.crash"
cmp -s "$scratch/want" "$scratch/real.crash" ||
	{ diff "$scratch/want" "$scratch/real.crash" | head >&2; fail "a real run's quantiles changed across the crash"; }

# The example, with its crash and without.
example=$(cd "$EXAMPLES" && pwd)/plugin_aggregates.conf
cd "$scratch" || fail "no scratch directory"
cp "$example" example.conf || fail "cannot copy the example"
grep -v '^fail_at' example.conf | sed 's/^checkpoint_dir = .*/&-whole/' >whole.conf
expect_status 0 "$WMRUN" --sim example.conf
expect_line '^  restart                 at 40 min 0 s, from chk-' "$scratch/err"
expect_line '^  every record accounted  yes$' "$scratch/err"
head -1 "$scratch/out" | grep -qx 'key,window_start,window_end,count,avg,quantile,quantile_2,fire_time,watermark,late_firing' ||
	fail "the example's results do not have the plugin's columns"
cut -d, -f1-7 "$scratch/out" | LC_ALL=C sort -u >crashed
expect_status 0 "$WMRUN" --sim whole.conf
cut -d, -f1-7 "$scratch/out" | LC_ALL=C sort -u >whole
cmp -s whole crashed || { diff whole crashed | head >&2; fail "the example's results changed across its crash"; }
windows=$(awk -F, 'NR > 1 && $2 >= 0' "$scratch/out" | wc -l)
[ "$windows" -eq 240 ] || fail "the example has $windows windows of the hour"

# An aggregate that crashes: its worker dies, named.
conf 'size = 1 s' 'count, plugin:crashing' 'event_time = 70 s' |
	sed "s|^plugin = .*|plugin = $TEST_PLUGINS/libcrashing.so|" >"$scratch/crash.conf"
expect_status 1 timeout 120 "$WMRUN" --live=never "$scratch/crash.conf"
grep -q 'worker "w/0"' "$scratch/err" ||
	{ cat "$scratch/err" >&2; fail "the crash does not name its worker"; }
sed "s|^name = quantiles$|&\nspeed = 20\ncheckpoint_interval = 2 s\ncheckpoint_dir = $scratch/crashing.ck\nrestart_strategy = fixed-delay\nrestart_attempts = 2\nrestart_delay = 100 ms|" \
	"$scratch/crash.conf" >"$scratch/restarts.conf"
expect_status 1 timeout 120 "$WMRUN" --live=never "$scratch/restarts.conf"
# (A sanitizer's build reports the fault and exits 1.)
expect_line 'worker "w/0" \(pid [0-9]+\) (was terminated by signal 11|exited with status 1).*; restarting from checkpoint [0-9]+ in 100 ms \(restart 1, ' "$scratch/err"
expect_line 'restart_strategy = fixed-delay gave up after 2 restarts' "$scratch/err"
expect_line '^  restarts                2$' "$scratch/err"

# refused LINE:COL WHY AGGREGATES: refused at its line and column.
refused() {
	conf 'size = 1 s' "$3" >"$scratch/bad.conf"
	expect_status 78 "$WMRUN" --check "$scratch/bad.conf"
	expect_line "bad.conf:$1: invalid value for \"aggregates\" in \[window w\]: $2" "$scratch/err"
}
refused 13:28 'the plugin has no aggregate function median' 'count, plugin:median(0.5)'
refused 13:36 'the plugin.s aggregate function quantile refuses the arguments "2"' \
	'count, plugin:quantile(2)'
refused 13:102 'a window has at most 4 plugin aggregates' \
	'plugin:quantile(0.1), plugin:quantile(0.2), plugin:quantile(0.3), plugin:quantile(0.4), plugin:quantile(0.5)'
refused 13:36 'expected plugin:NAME\(ARGS\), the arguments closed at the end' \
	'count, plugin:quantile(0.5'
refused 13:21 'invalid aggregate "median"' 'count, median'
conf 'size = 1 s' 'plugin:quantile(0.5)' | grep -v '^plugin = ' >"$scratch/bad.conf"
expect_status 78 "$WMRUN" --check "$scratch/bad.conf"
expect_line 'bad.conf:12:14: invalid value for "aggregates" in \[window w\]: no plugin is loaded' "$scratch/err"

expect_status 78 "$WMRUN" --export-flink "$scratch/project" "$scratch/tumbling.conf"
expect_line "tumbling.conf:13:1: cannot export a plugin's aggregate function" "$scratch/err"
[ ! -e "$scratch/project" ] || fail "a refused export left files behind"
echo "$(wc -l <"$scratch/want") windows' quantiles as the trace's, in --sim, a real run and across crashes; the example's $windows the same across its crash"
exit 0
