#!/bin/sh
# wmrun --resume DIR with no DIR: exit 66 (nothing to resume from) and
# nothing created, neither DIR (it used to make DIR/parts before exiting
# 66) nor the job's output file.
. "$srcdir/tests/lib/lib.sh"

checkpoint_job job "$scratch/elsewhere.chk"
expect_status 66 "$WMRUN" --resume "$scratch/none/dir" "$scratch/job.conf"
expect_line "^wmrun: no complete checkpoint to resume from in \"$scratch/none/dir\"" "$scratch/err"
expect_status 66 "$WMRUN" --resume "$scratch/none" "$scratch/job.conf"
expect_line "^wmrun: no complete checkpoint to resume from in \"$scratch/none\"" "$scratch/err"
[ ! -e "$scratch/none" ] || fail "--resume created $(find "$scratch/none")"
[ ! -e "$scratch/job.csv" ] || fail "--resume created the output file"
[ ! -e "$scratch/elsewhere.chk" ] || fail "--resume created the configured directory"
exit 0
