#!/bin/sh
# The parallelism incident as a law: 16 partitions each silent a fraction
# p = 0.2 of the time, read at parallelism 1, 2, 4, 8, 16. With watermarks
# per subtask a subtask's generator stands still only when all its
# k = 16 / parallelism partitions are silent, so the window stalls
# 1-(1-p^k)^(16/k) of the time: nothing at 1 and 2, and up to the split
# figure at 16 as k falls. With watermarks per split every partition
# holds the minimum whatever subtask reads it: 1-(1-p)^16 at every
# parallelism, the same figures to the digit. Every row is within 0.03
# of its law (the tolerance is derived in study_stall_law_split.sh).
#
# What each costs: per subtask the watermark follows the busiest
# partitions and the records that arrive later than out_of_orderness
# allows (1 %) find their window fired; per split the silent partition
# holds the watermark so far back that almost none is late.
. "$srcdir/tests/lib/lib.sh"

# Under the sanitizers this sweep of ten runs took 88 s, the longest test
# of that build and its tail, for code study_stall_law_split.sh and
# study_stall_law_idle_timeout.sh run there too (the generator, the sweep,
# --sim): the plain build runs it.
if [ "${WM_SANITIZERS:-no}" = yes ]; then
	echo "SKIP: the sanitizer build leaves this sweep to the plain build"
	exit 77
fi

conf="$EXAMPLES/study_stall_law.conf"

expect_status 0 "$WMRUN" --sim --sweep events.watermark_at=subtask,split \
	--sweep events.parallelism=1,2,4,8,16 --sweep-csv "$scratch/p.csv" \
	"$conf"
cat "$scratch/out"
sweep_rows "$scratch/p.csv" 10
stall_law "$scratch/p.csv" 0.2 0.03 ||
	fail "a row of the sweep over parallelism is not within 0.03 of its law"

# By mode and parallelism (stall_fraction is column 3, late_ratio 7):
# per subtask the stall is nil at 1 and 2 and grows from there, and the
# late ratio falls as the stall grows; per split the stall is the same
# at every parallelism to the digit, and the late ratio within 10 % (how
# the subtasks' watermarks interleave with the records decides which of
# the few records late by up to a minute find their window fired); per subtask at parallelism 1, with no stall, more
# than ten times as many records are late as per split.
awk -F, 'NR > 1 { stall[$1, $2] = $3; late[$1, $2] = $7 }
END {
	if (!(stall["subtask", 1] < 0.01 && stall["subtask", 2] < 0.01))
		bad = bad "per subtask, parallelism 1 or 2 stalled; "
	for (p = 4; p <= 16; p *= 2) {
		q = p / 2
		if (!(stall["subtask", p] > stall["subtask", q]))
			bad = bad "per subtask, the stall did not grow at " p "; "
		if (!(late["subtask", p] < late["subtask", q]))
			bad = bad "per subtask, the late ratio did not fall at " p "; "
	}
	for (p = 2; p <= 16; p *= 2)
		if (stall["split", p] != stall["split", 1] ||
		    late["split", p] > 1.1 * late["split", 1] ||
		    late["split", p] < 0.9 * late["split", 1])
			bad = bad "per split, parallelism " p " changed the figures; "
	if (!(late["subtask", 1] > 10 * late["split", 1]))
		bad = bad "the fresher watermark per subtask cost no late records; "
	if (bad != "") {
		print bad >"/dev/stderr"
		exit 1
	}
}' "$scratch/p.csv" || fail "the sweep over parallelism does not show the incident"
