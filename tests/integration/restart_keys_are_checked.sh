#!/bin/sh
# [job]'s restart keys: a strategy of Flink's, its parameters checked where
# they stand (exit 78, file:line:col), a parameter of another strategy
# refused at its key naming both, every key needing checkpoints.
. "$srcdir/tests/lib/lib.sh"

# job LINES... -- a small job with checkpoints and these [job] lines
# (from line 5), in $scratch/job.conf.
job() {
	{
		echo '[job]'
		echo 'event_time = 10 s'
		echo 'checkpoint_interval = 1 s'
		echo "checkpoint_dir = $scratch/chk"
		for l in "$@"; do echo "$l"; done
		printf '[source s]\npartitions = 2\nrate = 100/s\n'
		printf '[window w]\ninput = s\nsize = 1 s\n'
	} >"$scratch/job.conf"
}

# refused PATTERN LINE...: with these [job] lines --sim exits 78 with a
# line matching PATTERN.
refused() {
	pattern=$1
	shift
	job "$@"
	expect_status 78 "$WMRUN" --sim "$scratch/job.conf"
	expect_line "$pattern" "$scratch/err"
}

# Every strategy and parameter as Flink names them runs.
job "restart_strategy = fixed-delay" "restart_attempts = 3" "restart_delay = 10 s"
expect_status 0 "$WMRUN" --sim "$scratch/job.conf"
job "restart_strategy = exponential-delay" "restart_attempts = 5" \
	"restart_initial_delay = 2 s" "restart_max_delay = 2 min" \
	"restart_multiplier = 1.4" "restart_reset_threshold = 10 min" \
	"restart_jitter = 0"
expect_status 0 "$WMRUN" --sim "$scratch/job.conf"
job "restart_strategy = none"
expect_status 0 "$WMRUN" --sim "$scratch/job.conf"

# A parameter of another strategy, at its key.
refused 'job.conf:6:1: key "restart_jitter" in \[job\] belongs to restart_strategy = exponential-delay, not to fixed-delay$' \
	"restart_strategy = fixed-delay" "restart_jitter = 0.2"
refused 'job.conf:5:1: key "restart_delay" in \[job\] belongs to restart_strategy = fixed-delay, not to exponential-delay \(the default with checkpoints\)$' \
	"restart_delay = 2 s"
refused 'job.conf:5:1: key "restart_attempts" in \[job\] belongs to restart_strategy = fixed-delay or exponential-delay, not to none$' \
	"restart_attempts = 2" "restart_strategy = none"

# Values, at their column.
refused 'job.conf:5:20: invalid value for "restart_strategy" in \[job\]: .*"none", "fixed-delay" or "exponential-delay"' \
	"restart_strategy = failure-rate"
refused 'job.conf:5:20: invalid value for "restart_attempts" in \[job\]: must be between 1 and 2147483647$' \
	"restart_attempts = 0"
refused 'job.conf:6:20: invalid value for "restart_attempts"' \
	"restart_strategy = fixed-delay" "restart_attempts = -1"
refused 'job.conf:5:22: invalid value for "restart_multiplier" in \[job\]: must be greater than 1$' \
	"restart_multiplier = 1"
refused 'job.conf:5:18: invalid value for "restart_jitter"' \
	"restart_jitter = 1.5"
refused 'job.conf:5:25: invalid value for "restart_initial_delay" in \[job\]: must be positive$' \
	"restart_initial_delay = 0 s"
refused 'job.conf:6:25: invalid value for "restart_initial_delay" in \[job\]: restart_initial_delay cannot be longer than restart_max_delay$' \
	"restart_max_delay = 10 s" "restart_initial_delay = 20 s"
refused 'job.conf:5:25: .*cannot be longer than restart_max_delay$' \
	"restart_initial_delay = 2 min"
refused 'job.conf:5:27: invalid value for "restart_reset_threshold"' \
	"restart_reset_threshold = 0 s"
refused 'job.conf:6:17: invalid value for "restart_delay"' \
	"restart_strategy = fixed-delay" "restart_delay = soon"

# Without checkpoints a restart has nothing to restore: refused at the
# first restart key, as fail_at is.
{
	echo '[job]'
	echo 'event_time = 10 s'
	echo 'restart_delay = 1 s'
	echo 'restart_strategy = fixed-delay'
	printf '[source s]\npartitions = 2\nrate = 100/s\n'
	printf '[window w]\ninput = s\nsize = 1 s\n'
} >"$scratch/job.conf"
expect_status 78 "$WMRUN" --sim "$scratch/job.conf"
expect_line 'job.conf:3:17: invalid value for "restart_delay" in \[job\]: a restart needs checkpoints: checkpoint_interval and checkpoint_dir in \[job\]$' "$scratch/err"
# A real run follows them: with none, the worker fail_at kills fails the
# job (exit 1), the message naming the crash and the strategy; with
# fixed-delay it restarts once and finishes.
job "restart_strategy = none" "fail_at = 5 s" "speed = 10"
expect_status 1 "$WMRUN" "$scratch/job.conf"
expect_line '^wmrun: worker "w/0" \(pid [0-9]+\) was terminated by signal 9: Killed; restart_strategy = none does not restart it$' "$scratch/err"
rm -rf "$scratch/chk"
job "restart_strategy = fixed-delay" "restart_attempts = 1" \
	"restart_delay = 100 ms" "fail_at = 5 s" "speed = 10"
expect_status 0 "$WMRUN" "$scratch/job.conf"
expect_line '^  restarts                1$' "$scratch/err"
expect_line 'after 100 ms \(restart_strategy = fixed-delay, attempt 1\)' "$scratch/err"
exit 0
