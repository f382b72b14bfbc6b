#!/bin/sh
# A job whose estimated memory exceeds this machine's is refused before
# anything runs or is opened, by --check, a real run and --sim alike
# (exit 78, at the section of what needs the memory, with the estimate);
# jobs that fit are not, and --check shows every job's estimate.
. "$srcdir/tests/lib/lib.sh"

# 9999 s windows sliding by 1 ms: 9999202 windows of each of a million
# keys alive at once, 3.3 PiB of state (the job, with keys enough
# to exceed any machine). It used to pass --check and run until the
# machine ran out of memory.
printf '[job]\nevent_time = 1 h\n[source s]\nparallelism = 2\npartitions = 16\nrate = 1000/s\nkeys = 1M\n[window w]\ninput = s\nparallelism = 2\ntype = sliding\nsize = 9999 s\nslide = 1 ms\n[sink o]\ninput = w\nparallelism = 2\npath = %s/o.csv\n' "$scratch" >"$scratch/sliding.conf"
refusal='sliding.conf:8:1: the job needs about 3.3 PiB of memory and this machine has [0-9.]+ [KMGTP]iB \((physical memory|cgroup memory limit|RLIMIT_AS)\): window "w" keeps about 9999202000000 \(key, window\) states at once \(1000000 keys x 9999202 windows alive each\), which take 3.3 PiB$'
expect_status 78 "$WMRUN" --check "$scratch/sliding.conf"
expect_line "^wmrun: .*$refusal" "$scratch/err"
expect_line '^memory: about 3.3 PiB, of this machine.s ' "$scratch/out"
expect_line '^  window w +3.3 PiB  9999202000000 states of 368 B: 1000000 keys x 9999202 windows alive each$' "$scratch/out"
for mode in "" --sim; do
	# shellcheck disable=SC2086
	expect_status 78 timeout 60 "$WMRUN" $mode --summary "$scratch/s.json" "$scratch/sliding.conf"
	expect_line "^wmrun: .*$refusal" "$scratch/err"
	[ ! -e "$scratch/o.csv" ] || fail "a refused job${mode:+ ($mode)} opened its sink"
	[ ! -e "$scratch/s.json" ] || fail "a refused job${mode:+ ($mode)} opened its summary"
done

# 256 x 256 subtasks with rings of 256 MiB: 16 TiB of rings, named at the
# window, which reads 65536 of them.
printf '[job]\nring_size = 256 MiB\nevent_time = 10 s\n[source s]\nparallelism = 256\nrate = 1/s\n[window w]\ninput = s\nparallelism = 256\nsize = 1 min\n' >"$scratch/rings.conf"
expect_status 78 "$WMRUN" --check "$scratch/rings.conf"
expect_line '^wmrun: .*rings.conf:7:1: the job needs about 16.[0-9] TiB of memory and this machine has .*: its 513 processes and 65536 rings of 256.0 MiB take 16.[0-9] TiB$' "$scratch/err"
expect_line '^  segment +16.0 TiB  65536 rings of 256.0 MiB and the tables$' "$scratch/out"
expect_status 78 "$WMRUN" "$scratch/rings.conf"
expect_line 'rings.conf:7:1: the job needs about 16.[0-9] TiB' "$scratch/err"
# --sim has no rings: the same job fits in one process.
expect_status 0 timeout 60 "$WMRUN" --sim "$scratch/rings.conf"

# Ten records cannot open more than ten windows, however long their
# windows live: a huge lateness over a million keys is not refused.
printf '[job]\nrecords = 10\n[source s]\nparallelism = 1\npartitions = 1\nrate = 1000/s\nkeys = 1M\n[window w]\ninput = s\nparallelism = 1\nsize = 1 ms\nallowed_lateness = 1 d\n' >"$scratch/short.conf"
expect_status 0 "$WMRUN" --check "$scratch/short.conf"
expect_line '^  window w +3.6 KiB  10 states of 368 B: as many as 10 records can open, 1 window each$' "$scratch/out"
expect_status 0 timeout 60 "$WMRUN" --sim "$scratch/short.conf"

# The built-in job fits, and --check says how.
expect_status 0 "$WMRUN" --check
expect_line '^memory: about [0-9.]+ MiB, of this machine.s [0-9.]+ [KMGTP]iB ' "$scratch/out"
expect_line '^  segment +[0-9.]+ MiB  8 rings of 132.0 KiB and the tables$' "$scratch/out"
expect_line '^  page tables +56.0 KiB  ' "$scratch/out"
expect_line '^  window counts +5.8 KiB  16 states of 368 B: 8 keys x 2 windows alive each$' "$scratch/out"
