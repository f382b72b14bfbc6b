#!/bin/sh
# Every message line a worker prints is written with one system call, so
# that lines of processes failing at the same moment never run into each
# other (each used to be three writes: prefix, text, line end). Checked
# with strace on a job whose sources fail at their first wait for a record
# (futex_fails), the supervisor's lines included.
. "$srcdir/tests/lib/lib.sh"

command -v strace >/dev/null || { echo "strace is not installed"; exit 77; }
"$FUTEX_FAILS" all true 2>/dev/null || { echo "no seccomp filters here"; exit 77; }

cat >"$scratch/job.conf" <<CONF
[job]
processing_time = 10 s
speed = 1
[source s]
parallelism = 4
partitions = 8
rate = 20/s
[window w]
input = s
parallelism = 2
size = 1 s
[sink out]
input = w
parallelism = 2
path = $scratch/out.csv
CONF

strace -f -qq -e trace=write -e signal=none -s 65536 -o "$scratch/trace" \
	"$FUTEX_FAILS" timed "$WMRUN" "$scratch/job.conf" >"$scratch/out" 2>"$scratch/err"
expect_line '^wmrun\[s/[0-3]\]: error: could not wait for the next record: Function not implemented$' "$scratch/err"
# Every write(2, ...) of a message ("wmrun: ..." or "wmrun[...]: ..."): a
# whole line, its end included; the summary's lines too.
grep '^[0-9]* *write(2, ' "$scratch/trace" >"$scratch/writes" ||
	fail "nothing was written to stderr"
n=$(grep -c 'write(2, "wmrun' "$scratch/writes")
[ "$n" -ge 2 ] || fail "only $n messages"
# (A call another process interrupted ends "<unfinished ...>", one whose
# process was killed during it "= ?", one strace let go of as the process
# exited "<detached ...>", one whose result strace could not read as the
# process went "= ? <unavailable>": their text is whole all the same.)
if grep -v 'write(2, ".*\\n", [0-9]*\( <unfinished \.\.\.>\| <detached \.\.\.>\|) = \([0-9]*\|?\)\( <unavailable>\)\{0,1\}\)$' "$scratch/writes" >"$scratch/broken"; then
	cat "$scratch/broken" >&2
	fail "$(wc -l <"$scratch/broken") writes to stderr that are not whole lines"
fi
echo ok
