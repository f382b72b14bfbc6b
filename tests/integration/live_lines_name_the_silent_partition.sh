#!/bin/sh
# Run where standard error is no terminal, wmrun prints timestamped lines
# while the job runs: when a watermark has been held for the stall
# threshold, which partition of which source subtask holds it and why
# (silence), and when it moves again. --quiet prints only the summary.
. "$srcdir/tests/lib/lib.sh"

# Partition 3 is silent from 1 h to 3 h of processing time, with no idle
# timeout: it holds the source subtask that reads it (which one, Flink's
# split assignment says) and the window for those two hours, about 3.6 s
# of real time at speed 2000.
quiet_partition_job 2000 "$scratch/out.csv" >"$scratch/job.conf"

expect_status 0 "$WMRUN" --live=never "$scratch/job.conf"
err="$scratch/err"
held='^wmrun: [0-9.]+ (ms|s|min [0-9]+ s) \(processing time ([0-9]+ h [0-9]+ min|[0-9]+ min [0-9]+ s)\): counts/0 watermark (\+[0-9]+d )?[0-9:.]+ held for .* by partition events-3 of events/[01] \(silence: nothing arrives\)$'
moves='^wmrun: .*: counts/0 watermark moves again, '
expect_line "$held" "$err"
expect_line "$moves" "$err"
# The source subtask that reads it, named as its holder too.
reader=$(grep -E "$held" "$err" | head -n 1 | sed -E 's/.* of (events\/[01]) .*/\1/')
expect_line "^wmrun: .*: $reader watermark (\+[0-9]+d )?[0-9:.]+ held for .* by partition events-3 of $reader \(silence" "$err"
# At the times the silence says: held within the silence, and the window
# moving again after that only once partition 3 returned at 3 h. (On a
# loaded machine a subtask not scheduled for a few milliseconds, 10 s of
# processing time at speed 2000, is news too, held and moving again before
# the silence: those lines say why and are not the silence's.)
first_held=$(grep -nE "$held" "$err" | head -n 1 | cut -d: -f1)
hours() { sed -E 's/.*\(processing time ([0-9]+) h.*/\1/;t;s/.*/0/'; }
at_held=$(grep -E "$held" "$err" | head -n 1 | hours)
at_move=$(tail -n +"$first_held" "$err" | grep -E "$moves" | head -n 1 | hours)
[ -n "$at_move" ] || fail "the window never moved again after the silence"
[ "$at_held" -ge 1 ] && [ "$at_held" -lt 3 ] ||
	fail "held line at hour $at_held, not within the silence (1 h to 3 h)"
[ "$at_move" -ge 3 ] || fail "moving again at hour $at_move, before 3 h"
# No partition that never went silent is blamed for silence (on a loaded
# machine a starved subtask may hold a watermark for a while: that is
# said, as starvation or a low watermark, and is no silence).
! grep -E 'held for .* by partition events-[012] .*\(silence' "$err" ||
	fail "a partition that never went silent was blamed for silence"
expect_line '^wmrun: .*: [0-9]+ records read \(.*/s\), lowest watermark ' "$err"
expect_line '^wmrun: job "one-quiet-partition" finished after ' "$err"

# --quiet: the summary alone.
expect_status 0 "$WMRUN" --quiet "$scratch/job.conf"
! grep -E 'held for|moves again|records read \(' "$scratch/err" ||
	fail "--quiet printed live lines"
expect_line '^wmrun: job "one-quiet-partition" finished after ' "$scratch/err"

# A bad --live is a usage error naming the allowed words.
expect_status 64 "$WMRUN" --live=sometimes "$scratch/job.conf"
expect_line 'invalid --live.*"sometimes"' "$scratch/err"
expect_line 'auto' "$scratch/err"
expect_status 64 "$WMRUN" --sample-interval=0ms "$scratch/job.conf"
expect_line 'sample-interval' "$scratch/err"
echo ok
