#!/bin/sh
# watermark = plugin:NAME: a user's watermark generator in C
# (wmrun/plugin.h), from the shared library [job] plugin names.
#   - adaptive_bound (plugins/adaptive_bound.c) follows the disorder its
#     partitions show: where a bound of 1 s leaves 259 stragglers late,
#     it leaves none; a real run takes it as --sim does;
#   - heartbeat_idleness (plugins/heartbeat_idleness.c): of two
#     partitions silent from 10 s to 40 s, the one whose heartbeats vouch
#     for it goes idle, the one that sends nothing holds the watermark;
#   - a generator that crashes takes its worker down, and the job says
#     which (exit 1);
#   - examples/plugin_watermarks.conf loads adaptive_bound shipped with
#     wmrun (plugin = wmrun:NAME): 4 stragglers late, those before their
#     partition's bound grew, where a fixed 2 s bound leaves 256, and the
#     windows fire later, at p50 30.0 s after their end instead of 4.0 s;
#   - refused at their line (exit 78): a library of another plugin ABI,
#     an unknown generator, arguments it refuses, no [job] plugin, a bare
#     library name, a file another user can change; and the export.
. "$srcdir/tests/lib/lib.sh"

# conf PLUGIN WATERMARK [SOURCE LINES]: a job of 2 partitions, 60 s.
conf() {
	cat <<CONF
[job]
name = plugins
event_time = 60 s
seed = 3
plugin = $1
[source s]
partitions = 2
rate = 50/s
keys = 3
out_of_orderness = 1 s
late_fraction = 0.05
late_by = 5 s
watermark = $2
${3:-}
[window w]
input = s
size = 1 s
aggregates = count
[sink out]
input = w
path = $scratch/out.csv
CONF
}

adaptive="$PLUGINS/libadaptive_bound.so"
conf "$adaptive" 'plugin:adaptive_bound(100, 10000)' >"$scratch/adaptive.conf"
expect_status 0 "$WMRUN" --sim "$scratch/adaptive.conf"
expect_line '^  records read            6000$' "$scratch/err"
expect_line '^  late, dropped           0$' "$scratch/err"
expect_line '^  every record accounted  yes$' "$scratch/err"
grep -v '^watermark = ' "$scratch/adaptive.conf" >"$scratch/bounded.conf"
expect_status 0 "$WMRUN" --sim "$scratch/bounded.conf"
expect_line '^  late, dropped           259$' "$scratch/err"

sed 's/^seed = 3$/seed = 3\nspeed = 10/' "$scratch/adaptive.conf" >"$scratch/real.conf"
expect_status 0 timeout 120 "$WMRUN" --live=never "$scratch/real.conf"
expect_line '^  records read            6000$' "$scratch/err"
expect_line '^  every record accounted  yes$' "$scratch/err"

# Heartbeats vouch for partition 0's silence, nothing for partition 1's.
conf "$PLUGINS/libheartbeat_idleness.so" 'plugin:heartbeat_idleness(1000, 3000)' \
	'silence = 0-1 from 10 s to 40 s
heartbeat = 0 every 1 s' | sed 's/^late_fraction.*//; s/^late_by.*//' \
	>"$scratch/vouched.conf"
expect_status 0 "$WMRUN" --sim "$scratch/vouched.conf"
expect_line '^  every record accounted  yes$' "$scratch/err"
grep -Eq '^    partition s-0 .* idle [1-9][0-9]* (ms|s)' "$scratch/err" ||
	grep -Eq '^    partition s-0 .*idle .*\([1-9][0-9]* times?\)' "$scratch/err" ||
	{ cat "$scratch/err" >&2; fail "the vouched partition never went idle"; }
grep -Eq '^    partition s-1 .*idle 0 ms \(0 times\)' "$scratch/err" ||
	{ cat "$scratch/err" >&2; fail "the silent partition went idle, or is not listed"; }

expect_status 0 "$WMRUN" --sim --summary "$scratch/adaptive.json" \
	"$EXAMPLES/plugin_watermarks.conf"
expect_line '^  late, side output       4$' "$scratch/err"
expect_line '^  window fire delay       p50 30\.0 s, p99 31\.0 s, max 31\.0 s$' "$scratch/err"
expect_line '"fire_delay_ms":\{"p50":30000,"p99":30992,"max":31000\}' "$scratch/adaptive.json"
expect_line '^  every record accounted  yes$' "$scratch/err"
sed 's/^watermark = plugin.*/watermark = bounded/' "$EXAMPLES/plugin_watermarks.conf" \
	>"$scratch/fixed.conf"
expect_status 0 "$WMRUN" --sim --summary "$scratch/fixed.json" "$scratch/fixed.conf"
expect_line '^  late, side output       256$' "$scratch/err"
expect_line '"fire_delay_ms":\{"p50":4000,"p99":4600,"max":4600\}' "$scratch/fixed.json"

# A generator that crashes: its worker dies, named.
conf "$TEST_PLUGINS/libcrashing.so" 'plugin:crashing' >"$scratch/crash.conf"
expect_status 1 timeout 120 "$WMRUN" --live=never "$scratch/crash.conf"
grep -q 'worker "s/0"' "$scratch/err" ||
	{ cat "$scratch/err" >&2; fail "the crash does not name its worker"; }

# refused LINE:COL WHY PLUGIN WATERMARK: refused at its line.
refused() {
	conf "$3" "$4" >"$scratch/bad.conf"
	expect_status 78 "$WMRUN" --check "$scratch/bad.conf"
	expect_line "bad.conf:$1: invalid value for \"[a-z]*\" in \[[a-z]* ?[a-z]*\]: $2" "$scratch/err"
}
refused 5:10 'the plugin was built for plugin ABI 3, this wmrun has 2' \
	"$TEST_PLUGINS/libother_abi.so" 'plugin:x'
refused 13:20 'the plugin has no watermark generator adaptive' \
	"$adaptive" 'plugin:adaptive'
refused 13:34 'the plugin.s generator adaptive_bound refuses the arguments "5"' \
	"$adaptive" 'plugin:adaptive_bound(5)'
refused 5:10 'give the plugin.s path' libadaptive_bound.so 'plugin:adaptive_bound(1, 2)'
cp "$adaptive" "$scratch/shared.so"
chmod g+w "$scratch/shared.so"
refused 5:10 'the plugin can be changed by another user' \
	"$scratch/shared.so" 'plugin:adaptive_bound(1, 2)'
conf "$adaptive" bounded | sed 's/^watermark = bounded$/watermark = plugin:adaptive_bound(1, 2)/' |
	grep -v '^plugin = ' >"$scratch/bad.conf"
expect_status 78 "$WMRUN" --check "$scratch/bad.conf"
expect_line 'no plugin is loaded: name its library in \[job\] plugin = PATH' "$scratch/err"

expect_status 78 "$WMRUN" --export-flink "$scratch/project" "$scratch/adaptive.conf"
expect_line "adaptive.conf:13:1: cannot export a plugin's watermark generator" "$scratch/err"
[ ! -e "$scratch/project" ] || fail "a refused export left files behind"
exit 0
