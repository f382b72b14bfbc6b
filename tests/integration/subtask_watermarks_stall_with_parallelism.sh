#!/bin/sh
# Issue 13's incident, "parallelism raised from 2 to 8 and results stop
# coming": 8 partitions, partition 7 sparse, watermarks generated per
# source subtask (watermark_at = subtask). At parallelism 2 each
# subtask's watermark follows its busy partitions and windows fire
# seconds after their end; at 8 the subtask reading partition 7 alone
# holds every window for many minutes. With watermark_at = split the
# sparse partition holds them at both parallelisms. Window contents (and
# so the late counts, none here) are the same in all four runs.
. "$srcdir/tests/lib/lib.sh"

conf="$EXAMPLES/parallelism_subtask_watermarks.conf"
grep -q '^parallelism = 2$' "$conf" || fail "the example's parallelism line moved"
grep -q '^watermark_at = subtask$' "$conf" || fail "the example's watermark_at line moved"
for p in 2 8; do
	for m in subtask split; do
		sed -e "0,/^parallelism = 2$/s//parallelism = $p/" \
			-e "s/^watermark_at = subtask$/watermark_at = $m/" \
			"$conf" >"$scratch/$m$p.conf"
		expect_status 0 "$WMRUN" --sim "$scratch/$m$p.conf"
		cp "$scratch/out" "$scratch/$m$p.csv"
		cp "$scratch/err" "$scratch/$m$p.err"
	done
done
# With watermarks per subtask a partition has no watermark of its own:
# the summary lists none as stalled, and says why.
for p in 2 8; do
	expect_line '^  partitions +8, 0 stalled or idle, .*\(8 with watermarks per subtask, in none of these\)$' "$scratch/subtask$p.err"
	! grep -q '^    partition events-' "$scratch/subtask$p.err" ||
		fail "a partition with no watermark of its own listed as stalled"
done
expect_line '^    partition events-' "$scratch/split8.err"

# Windows that start before the last 20 minutes (the drain fires the
# rest at MAX).
to=6000000
d_subtask2=$(max_fire_delay "$scratch/subtask2.csv" 0 $to)
d_subtask8=$(max_fire_delay "$scratch/subtask8.csv" 0 $to)
d_split2=$(max_fire_delay "$scratch/split2.csv" 0 $to)
d_split8=$(max_fire_delay "$scratch/split8.csv" 0 $to)
echo "max fire delay (ms): subtask p2 $d_subtask2, p8 $d_subtask8; split p2 $d_split2, p8 $d_split8"
[ "$d_subtask2" -lt 60000 ] || fail "subtask mode at parallelism 2: windows fired ${d_subtask2} ms late"
[ "$d_subtask8" -gt 600000 ] || fail "subtask mode at parallelism 8: no window waited for the sparse subtask (${d_subtask8} ms)"
[ "$d_split2" -gt 600000 ] || fail "split mode at parallelism 2: the sparse partition held nothing (${d_split2} ms)"
[ "$d_split8" -gt 600000 ] || fail "split mode at parallelism 8: the sparse partition held nothing (${d_split8} ms)"
cut -d, -f1-5 "$scratch/subtask2.csv" | sort >"$scratch/a"
for r in subtask8 split2 split8; do
	cut -d, -f1-5 "$scratch/$r.csv" | sort >"$scratch/b"
	cmp -s "$scratch/a" "$scratch/b" || fail "window contents differ between subtask2 and $r"
done

# Alignment has nothing to align on per subtask: refused, with position.
sed 's/^watermark_at = subtask$/&\nwatermark_alignment_group = g\nwatermark_alignment_max_drift = 1 s/' \
	"$conf" >"$scratch/aligned.conf"
expect_status 78 "$WMRUN" --sim "$scratch/aligned.conf"
expect_line 'aligned.conf:42:29: ' "$scratch/err"
expect_line 'watermark alignment needs watermark_at = split' "$scratch/err"
