#!/bin/sh
# A recording costs its source a line into a buffer per record and a
# write(2) per 64 KiB of lines, whole lines each (runtime/io/sink.h): the
# trace file is a regular file opened for appending, where a write of any
# size goes in whole. It used to take a write per 4 KiB, the limit of a
# pipe, sixteen times as many system calls on the source's hot path.
# Results into a pipe still go in writes of at most PIPE_BUF bytes.
# Checked with strace, under --sim (one process, a buffer written only
# when full and at the end).
. "$srcdir/tests/lib/lib.sh"

command -v strace >/dev/null || { echo "strace is not installed"; exit 77; }
# LeakSanitizer cannot run under ptrace (a sanitizer build would exit 1
# at the end, its leak check refused).
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export ASAN_OPTIONS

cat >"$scratch/job.conf" <<CONF
[job]
records = 50000
[source s]
partitions = 4
rate = unlimited
keys = 1000
[window w]
input = s
size = 10 ms
[sink out]
input = w
path = -
CONF

strace -f -qq -e trace=write -e signal=none -y -s 0 -o "$scratch/trace" \
	"$WMRUN" --sim --quiet --record-trace "$scratch/rec.csv" \
	"$scratch/job.conf" >"$scratch/results" 2>"$scratch/err" ||
	{ cat "$scratch/err" >&2; fail "the recorded job failed"; }
[ "$(wc -l <"$scratch/rec.csv")" -eq 200001 ] ||
	fail "$(wc -l <"$scratch/rec.csv") lines recorded, 200001 expected"

# sizes WHAT -- the byte count of each write to the descriptor that
# strace shows as WHAT (a basic regex: a path, "pipe:\[[0-9]*\]"), one a
# line.
sizes() {
	sed -n "s|^[0-9]* *write([0-9]*<$1>, .*) = \\([0-9]*\\)\$|\\1|p" \
		"$scratch/trace"
}

sizes "$scratch/rec.csv" >"$scratch/rec_writes"
[ "$(awk '{ n += $1 } END { print n }' "$scratch/rec_writes")" -eq \
	"$(wc -c <"$scratch/rec.csv")" ] ||
	fail "the writes strace saw are not the whole recording"
# The header, then buffers as full as a 64 KiB buffer gets (less than the
# room a line may take short of it: 120 bytes with long keys, every
# marks' column counted, sink.c's TRACE_MAX_BYTES), then the rest at the
# end.
n=$(wc -l <"$scratch/rec_writes")
[ "$n" -ge 4 ] || fail "only $n writes: too little recorded to tell"
sed '1d;$d' "$scratch/rec_writes" | awk '$1 <= 65536 - 120 || $1 > 65536 {
	print "a write of " $1 " bytes"; bad = 1 } END { exit bad }' >&2 ||
	fail "the recording was not written 64 KiB at a time"

# The results went to a pipe (the shell's redirection is a file here:
# through cat, a pipe).
{
	strace -f -qq -e trace=write -e signal=none -y -s 0 \
		-o "$scratch/trace" "$WMRUN" --sim --quiet "$scratch/job.conf" \
		2>"$scratch/err"
	echo $? >"$scratch/rc"
} | cat >"$scratch/results"
[ "$(cat "$scratch/rc")" -eq 0 ] || { cat "$scratch/err" >&2; fail "the job failed"; }
sizes 'pipe:\[[0-9]*\]' >"$scratch/pipe_writes"
[ "$(awk '{ n += $1 } END { print n }' "$scratch/pipe_writes")" -eq \
	"$(wc -c <"$scratch/results")" ] ||
	fail "the writes strace saw are not the whole output"
[ "$(wc -l <"$scratch/pipe_writes")" -ge 2 ] || fail "too few results"
awk '$1 > 4096 { print "a write of " $1 " bytes to a pipe"; bad = 1 }
	END { exit bad }' "$scratch/pipe_writes" >&2 ||
	fail "results were written to a pipe in writes above PIPE_BUF"
echo ok
