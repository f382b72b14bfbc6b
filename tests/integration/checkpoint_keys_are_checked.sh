#!/bin/sh
# [job]'s checkpoint keys: checked where they stand, and taken by --sim
# and by a real run alike.
. "$srcdir/tests/lib/lib.sh"

# job LINES... -- a small job with these [job] lines, in $scratch/job.conf.
job() {
	{
		echo '[job]'
		echo 'event_time = 10 s'
		for l in "$@"; do echo "$l"; done
		printf '[source s]\npartitions = 2\nrate = 100/s\n'
		printf '[window w]\ninput = s\nsize = 1 s\n'
	} >"$scratch/job.conf"
}

job "checkpoint_interval = 1 s" "checkpoint_dir = $scratch/chk" "speed = 20"
expect_status 0 "$WMRUN" --sim "$scratch/job.conf"
rm -rf "$scratch/chk"
expect_status 0 "$WMRUN" "$scratch/job.conf"
expect_line "  checkpoints  *[1-9][0-9]* completed" "$scratch/err"
ls "$scratch"/chk/chk-*/_metadata >/dev/null 2>&1 || fail "a real run left no complete checkpoint"

# The first key given is the one named, whichever it is.
job "fail_at = 5 s" "checkpoint_interval = 1 s"
expect_status 78 "$WMRUN" "$scratch/job.conf"
expect_line "job.conf:3:11: .*fail_at.*need both checkpoint_interval and checkpoint_dir" "$scratch/err"

# Either key without the other, at its value.
job "checkpoint_interval = 1 s"
expect_status 78 "$WMRUN" --sim "$scratch/job.conf"
expect_line "job.conf:3:23: .*need both checkpoint_interval and checkpoint_dir" "$scratch/err"
job "checkpoints_retained = 0" "checkpoint_interval = 1 s" "checkpoint_dir = $scratch/chk"
expect_status 78 "$WMRUN" --sim "$scratch/job.conf"
expect_line "job.conf:3:24: " "$scratch/err"
job "checkpoint_interval = 0 s" "checkpoint_dir = $scratch/chk"
expect_status 78 "$WMRUN" --sim "$scratch/job.conf"
expect_line "job.conf:3:23: " "$scratch/err"
exit 0
