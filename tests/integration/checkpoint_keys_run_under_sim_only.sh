#!/bin/sh
# [job]'s checkpoint keys: checked where they stand, taken by --sim, and
# refused by a real run at the first of them (exit 78), since a real run
# takes no checkpoint yet and a key that did nothing would be a lie.
. "$srcdir/tests/integration/lib.sh"

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

job "checkpoint_interval = 1 s" "checkpoint_dir = $scratch/chk"
expect_status 78 "$WMRUN" "$scratch/job.conf"
expect_line "job.conf:3:1: checkpoint_interval: checkpoints run under --sim only" "$scratch/err"
[ ! -e "$scratch/chk" ] || fail "a refused real run made the checkpoint directory"
expect_status 0 "$WMRUN" --sim "$scratch/job.conf"

# The first key given is the one named, whichever it is.
job "fail_at = 5 s" "checkpoint_dir = $scratch/chk" "checkpoint_interval = 1 s"
expect_status 78 "$WMRUN" "$scratch/job.conf"
expect_line "job.conf:3:1: fail_at: checkpoints run under --sim only" "$scratch/err"

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
