#!/bin/sh
# Bad input gets a clear error naming file, line and column, and the
# sysexits code for it.
. "$srcdir/tests/integration/lib.sh"

printf '[source s]\nidle_timout = 30 s\n' >"$scratch/typo.conf"
expect_status 78 "$WMRUN" --check "$scratch/typo.conf"
expect_line "typo.conf:2:1: unrecognized key \"idle_timout\" in \[source s\] \(did you mean \"idle_timeout\"\?\)" "$scratch/err"

printf '[source s]\nidle_timeout = 0\n' >"$scratch/zero.conf"
expect_status 78 "$WMRUN" --sim "$scratch/zero.conf"
expect_line 'zero.conf:2:16: invalid value for "idle_timeout"' "$scratch/err"

printf '[source s]\n[window w]\ninput = nope\nsize = 1 min\n' >"$scratch/input.conf"
expect_status 78 "$WMRUN" --check "$scratch/input.conf"
expect_line 'input.conf:3:9: .*no stage named "nope"' "$scratch/err"

expect_status 66 "$WMRUN" --check "$scratch/missing.conf"
expect_line 'could not' "$scratch/err"
expect_status 64 "$WMRUN" --no-such-option
expect_status 64 "$WMRUN" a.conf b.conf
# A topology error stops a real run before any process starts.
expect_status 78 "$WMRUN" "$scratch/typo.conf"
# --check prints the plan.
expect_status 0 "$WMRUN" --check "$EXAMPLES/quiet_partitions.conf"
expect_line '^  window  counts +parallelism 2, max parallelism 128, input hash from "events"' "$scratch/out"
expect_line '^events/3 ' "$scratch/out"

# An explicit placement names one CPU per subtask, in plan order.
printf '[job]\ncpus = 0\n[source s]\nparallelism = 2\n[window w]\ninput = s\nsize = 1 min\n' >"$scratch/cpus.conf"
expect_status 78 "$WMRUN" --check "$scratch/cpus.conf"
expect_line 'cpus.conf:2:8: invalid value for "cpus" in \[job\]: names 1 CPUs for 3 subtasks' "$scratch/err"
expect_status 78 "$WMRUN" "$scratch/cpus.conf"
expect_line 'cpus.conf:2:8: invalid value for "cpus" in \[job\]: names 1 CPUs for 3 subtasks' "$scratch/err"
sed -i 's/^cpus = 0$/cpus = 0,0,0/' "$scratch/cpus.conf"
expect_status 0 "$WMRUN" --check "$scratch/cpus.conf"
expect_line 'from the CPU list' "$scratch/out"
expect_line '^s/1 +0 ' "$scratch/out"
# --sim refuses a job that would never end; a real run is a stream job.
expect_status 78 "$WMRUN" --sim "$scratch/cpus.conf"
expect_line 'source "s" never ends: give \[job\] a run length' "$scratch/err"
