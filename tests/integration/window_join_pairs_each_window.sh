#!/bin/sh
# A window join ([join] window = tumbling | sliding | session) pairs every
# left record with every right record of its key in each window they
# share, when the window fires, the pair timestamped with the window's
# maxTimestamp: under --sim and in a real run, as a brute-force join of
# the two traces says; records late for all their windows are dropped and
# counted per side; every record is accounted for, across a crash too;
# and the keys that do not go together are refused at their line, with
# exit 78.
. "$srcdir/tests/lib/lib.sh"
. "$srcdir/tests/lib/join_lib.sh"

# The traces of join_lib.sh, every timestamp even: an on-time record is
# above the watermark, so its windows have not fired (doc/semantics.md
# section 15.2). The late clicks are late for all their windows.
join_traces 8

conf() { # conf PATH EXTRA...: the job, its pairs to PATH
	path=$1
	shift
	cat <<CONF
[job]
name = window join
speed = 20
CONF
	join_sources
	cat <<CONF
[join shown]
left = impressions
right = clicks
parallelism = 2
window = tumbling
size = 2 s
CONF
	printf '%s\n' "$@"
	printf '[sink pairs]\ninput = shown\npath = %s\n' "$path"
}

# The pairs, by brute force: every on-time click r and impression l of
# one key in one 2 s window; the pair's timestamp is the window's last
# millisecond.
awk -F, 'FNR == 1 { file++; next }
file == 1 { n++; lk[n] = $3; lt[n] = $2; lv[n] = $4; next }
$2 >= $5 - 1000 {
	w = $2 - $2 % 2000
	for (i = 1; i <= n; i++)
		if (lk[i] == $3 && lt[i] - lt[i] % 2000 == w)
			printf "%d,%d,%d,%d,%d,%d\n", $3, w + 1999, lt[i], $2,
				lv[i], $4
}' "$scratch/impressions.csv" "$scratch/clicks.csv" | LC_ALL=C sort \
	>"$scratch/want"
pairs=$(wc -l <"$scratch/want")
[ "$pairs" -gt 500 ] || fail "only $pairs pairs: the traces meet too little"

check() { # check RUN
	tail -n +2 "$scratch/$1.csv" | cut -d, -f1-6 | LC_ALL=C sort \
		>"$scratch/$1.got"
	diff -u "$scratch/want" "$scratch/$1.got" >"$scratch/$1.diff" ||
		{ head -20 "$scratch/$1.diff"; fail "$1: the pairs differ from a brute-force join"; }
	expect_line "^  join late, dropped +$late \(left 0, right $late\)$" "$scratch/err"
	expect_line "^  pairs written +$pairs$" "$scratch/err"
	expect_line '^  every record accounted +yes$' "$scratch/err"
}
conf "$scratch/sim.csv" >"$scratch/sim.conf"
expect_status 0 "$WMRUN" --sim "$scratch/sim.conf"
check sim
conf "$scratch/real.csv" >"$scratch/real.conf"
expect_status 0 timeout 120 "$WMRUN" --quiet "$scratch/real.conf"
check real

# A crash under --sim, restored from the windows' lists and timers:
# exactly the pairs of the whole run.
conf "$scratch/crash.csv" >"$scratch/crash.conf"
sed -i "s|^speed = 20|&\ncheckpoint_interval = 5 s\ncheckpoint_dir = $scratch/ck\nfail_at = 37 s|" \
	"$scratch/crash.conf"
expect_status 0 "$WMRUN" --sim "$scratch/crash.conf"
expect_line '^    records replayed ' "$scratch/err"
check crash

# Sliding windows: a pair in each window both records are in.
conf "$scratch/sliding.csv" >"$scratch/sliding.conf"
sed -i 's/^window = tumbling/window = sliding\nslide = 1 s/' "$scratch/sliding.conf"
expect_status 0 "$WMRUN" --sim "$scratch/sliding.conf"
awk -F, 'FNR == 1 { file++; next }
file == 1 { n++; lk[n] = $3; lt[n] = $2; next }
$2 >= $5 - 1000 {
	for (i = 1; i <= n; i++) {
		if (lk[i] != $3)
			continue
		# the 2 s windows starting every 1 s that hold both
		for (s = $2 - $2 % 1000 - 1000; s <= $2; s += 1000)
			if (lt[i] >= s && lt[i] < s + 2000 && $2 < s + 2000)
				m++
	}
} END { print m }' "$scratch/impressions.csv" "$scratch/clicks.csv" \
	>"$scratch/sliding.want"
expect_line "^  pairs written +$(cat "$scratch/sliding.want")$" "$scratch/err"

# Keys that do not go together, each at its line.
bad() { # bad NAME SED-SCRIPT EXPECTED-LINE
	sed "$2" "$scratch/sim.conf" >"$scratch/$1.conf"
	expect_status 78 "$WMRUN" --check "$scratch/$1.conf"
	expect_line "$3" "$scratch/err"
}
bad both '/^window = /a between = 0, 1 s' \
	'both.conf:19:11: invalid value for "between" in \[join shown\]: a join pairs by an interval \(between\) or by windows \(window\), not both'
bad neither '/^window = /d; /^size = /d' \
	'neither.conf:14:1: \[join shown\] needs between = LOWER, UPPER \(an interval join\) or window = tumbling \| sliding \| session \(a window join\)'
bad exclusive '/^window = /a lower_bound_exclusive = true' \
	'exclusive.conf:19:1: "lower_bound_exclusive" has no effect in \[join shown\]: a window join pairs the records of each window, not by an interval'
bad late '/^window = /a right_late = late.csv' \
	'late.conf:19:1: "right_late" has no effect in \[join shown\]: a window join has no late side output'
bad gap '/^size = /a gap = 1 s' \
	'gap.conf:20:1: "gap" has no effect in \[join shown\]: a tumbling window has a size only'
bad nosize '/^size = /d' \
	'nosize.conf:14:1: .*"size"'

# The example: an outage of an impressions partition holds the join's
# windows for two hours, and the summary says which partition; the
# backlog is on time and pairs. With an idle timeout on the impressions
# the windows fire through the night and the backlog is late, dropped.
expect_status 0 "$WMRUN" --sim "$EXAMPLES/window_join_quiet_night.conf"
expect_line '^  join late, dropped +0 \(left 0, right 0\)$' "$scratch/err"
expect_line '^    join shown/0 waited 1 h 59 min on impressions/1, partition impressions-3: silent 2 h' "$scratch/err"
held=$(sed -n 's/^  pairs written *//p' "$scratch/err")
sed 's/^outage = .*/&\nidle_timeout = 1 min/' \
	"$EXAMPLES/window_join_quiet_night.conf" >"$scratch/idle.conf"
expect_status 0 "$WMRUN" --sim "$scratch/idle.conf"
expect_line '^  join late, dropped +[1-9][0-9]* \(left [1-9][0-9]*, right 0\)$' "$scratch/err"
expect_line '^  every record accounted +yes$' "$scratch/err"
idle=$(sed -n 's/^  pairs written *//p' "$scratch/err")
[ "$idle" -lt "$held" ] ||
	fail "with the idle timeout $idle pairs, not fewer than $held"
echo "$pairs pairs in 2 s windows, $late late clicks dropped, in --sim, a real run and across a crash; the example: $held pairs, $idle with the idle timeout"
