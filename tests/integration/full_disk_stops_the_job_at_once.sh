#!/bin/sh
# An output that cannot be written stops the job at once: exit 74, a
# message naming the sink, the path and the system's reason, the summary
# of what ran, and an output file that ends with its last whole line. The
# same under --sim. A job whose sink filled a 64 KiB disk after 2.5 s used
# to run its full length, then exit 74 with only "worker w/1 exited with
# status 74", its file cut in the middle of a line.
#
# Two real limits: a 64 KiB tmpfs (where the test may mount one: root),
# and, under --sim, a file size limit (ulimit -f: EFBIG, where SIGXFSZ
# would kill).
. "$srcdir/tests/lib/lib.sh"

small="$scratch/small"
mkdir "$small"
trap 'umount "$small" 2>/dev/null; rm -rf "$scratch"' EXIT

conf() { # conf PATH -- an hour-long job with many results into PATH
	cat <<CONF
[job]
processing_time = 1 h
speed = 1
[source s]
parallelism = 2
partitions = 4
rate = 500/s
keys = 500
[window w]
input = s
parallelism = 2
size = 10 ms
[sink out]
input = w
parallelism = 2
path = $1
CONF
}

# stops REASON MODE -- the job stops on the first failed write with REASON
# (MODE: real or --sim), leaving whole lines.
stops() {
	reason=$1
	opt=$2
	[ "$opt" = real ] && opt=
	# shellcheck disable=SC2086
	expect_status 74 timeout 300 "$WMRUN" $opt "$scratch/job.conf"
	expect_line "^wmrun(\[w/[01]\]: error)?: could not write to \"$out\" \(sink \"out\"\): $reason\$" "$scratch/err"
	expect_line '^wmrun: job "[^"]*" failed after ' "$scratch/err"
	[ -s "$out" ] || fail "$2: no results were written before the disk filled"
	[ "$(tail -c 1 "$out" | od -An -c | tr -d ' ')" = '\n' ] ||
		fail "$2: $out ends in the middle of a line"
	head -n 1 "$out" | grep -q '^key,window_start,window_end,' ||
		fail "$2: $out lost its header"
}

if mount -t tmpfs -o size=64k wmtest "$small" 2>/dev/null; then
	out="$small/out.csv"
	conf "$out" >"$scratch/job.conf"
	stops 'No space left on device' real
	rm -f "$out"
	stops 'No space left on device' --sim
	umount "$small"
else
	echo "no tmpfs here (not root): the file size limit only"
fi

# A real run cannot start under a file size limit smaller than its shared
# segment (a memfd is a file): exit 71, said so. --sim has no segment.
out="$scratch/out.csv"
conf "$out" >"$scratch/job.conf"
# 64 blocks of 512 bytes, as the shell's ulimit counts them
(ulimit -f 64 && stops 'File too large' --sim) || exit 1
echo ok
