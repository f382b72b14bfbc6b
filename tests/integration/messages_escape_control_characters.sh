#!/bin/sh
# Control characters from input never reach the terminal raw: a message
# that echoes a key, a field or a name shows each C0 control, DEL and C1
# control (U+0080..U+009F) as \xNN, and a key holding any of them is
# refused (65). A replayed trace whose key held an OSC 52 sequence (which
# sets the clipboard) used to be refused with the sequence echoed as it
# was, and so were paths given on the command line in the messages wmrun
# prints itself. A stage name holding a C1 control (U+009B, a one-byte
# CSI) is refused as a C0 one is, at its file, line and column.
. "$srcdir/tests/lib/lib.sh"

# raw FILE: whether FILE holds a control character but the line ends.
raw() {
	LC_ALL=C grep -q "$(printf '[\001-\037\177]')" "$1" ||
		LC_ALL=C grep -q "$(printf '\302[\200-\237]')" "$1"
}

conf() { # conf TRACE
	cat <<CONF
[source s]
partitions = 1
replay = $1
key_type = string
[window w]
input = s
size = 1 s
[sink out]
input = w
path = $scratch/out.csv
CONF
}
conf "$scratch/trace.csv" >"$scratch/job.conf"

# OSC 52 and OSC 0 in a key: refused, echoed escaped.
printf '0,1000,"a\033]52;c;cHduZWQ=\007b",1,0\n' >"$scratch/trace.csv"
expect_status 65 "$WMRUN" --sim "$scratch/job.conf"
! raw "$scratch/err" || { od -c "$scratch/err" >&2; fail "a key's ESC reached the terminal raw"; }
expect_line 'trace.csv:1:8: invalid key "a\\x1b\]52;c;cHduZWQ=\\x07b"' "$scratch/err"
printf '0,1000,"\033]0;owned\033\\",1,0\n' >"$scratch/trace.csv"
expect_status 65 "$WMRUN" --sim "$scratch/job.conf"
! raw "$scratch/err" || { od -c "$scratch/err" >&2; fail "OSC 0 reached the terminal raw"; }
expect_line 'invalid key "\\x1b\]0;owned' "$scratch/err"

# A C1 control (U+009B, a one-byte CSI) in a key: refused as C0 ones are,
# never a key to print.
printf '0,1000,"a\302\2332J",1,0\n' >"$scratch/trace.csv"
expect_status 65 "$WMRUN" --sim "$scratch/job.conf"
! raw "$scratch/err" || { od -c "$scratch/err" >&2; fail "a key's C1 control reached the terminal raw"; }
expect_line 'trace.csv:1:8: invalid key "a\\xc2\\x9b2J" \(control character U\+009B\)' "$scratch/err"

# A C1 control (U+009B) in a field that is echoed.
printf '0,\302\2331000,k,1,0\n' >"$scratch/trace.csv"
expect_status 65 "$WMRUN" --sim "$scratch/job.conf"
! raw "$scratch/err" || { od -c "$scratch/err" >&2; fail "a C1 control reached the terminal raw"; }
expect_line 'invalid timestamp "\\xc2\\x9b1000"' "$scratch/err"

# A C1 control in a stage name: refused where it is, as C0 ones are.
printf '[source "a\302\233b"]\npartitions = 1\nrate = 1/s\n' >"$scratch/c1.conf"
expect_status 78 "$WMRUN" --check "$scratch/c1.conf"
expect_line 'c1.conf:1:11: invalid control character U\+009B' "$scratch/err"
! raw "$scratch/err" || fail "the refusal echoed the C1 control"

# Paths from the command line, echoed by messages wmrun prints itself
# (not through a job's log), whose names hold OSC 52: they used to reach
# the terminal raw. An output below a directory that does not exist:
osc=$(printf 'x\033]52;c;aGk=\a')
printf '[job]\nevent_time = 1 s\n[source g]\npartitions = 1\nrate = 1/s\n[window w]\ninput = g\nsize = 1 s\n[sink out]\ninput = w\npath = -\n' \
	>"$scratch/gen.conf"
expect_status 74 "$WMRUN" --sim --summary "$scratch/$osc/s.json" "$scratch/gen.conf"
! raw "$scratch/err" || { od -c "$scratch/err" >&2; fail "a --summary path's ESC reached the terminal raw"; }
expect_line 'could not open summary file ".*/x\\x1b\]52;c;aGk=\\x07/s\.json"' "$scratch/err"
# The export directory, named in what --export-flink says it recorded:
expect_status 0 "$WMRUN" --export-flink "$scratch/$osc" "$scratch/gen.conf"
! raw "$scratch/err" || { od -c "$scratch/err" >&2; fail "an export directory's ESC reached the terminal raw"; }
expect_line 'recorded generated source "g" under --sim: .* into ".*/x\\x1b\]52;c;aGk=\\x07/data/source0\.csv"' "$scratch/err"
# The topology's own path, in a warning of the export:
sed 's/^path = -$/path = -\nformat = jsonl/' "$scratch/gen.conf" >"$scratch/$osc.conf"
expect_status 0 "$WMRUN" --export-flink "$scratch/jsonl" "$scratch/$osc.conf"
! raw "$scratch/err" || { od -c "$scratch/err" >&2; fail "a topology path's ESC reached the terminal raw"; }
expect_line '/x\\x1b\]52;c;aGk=\\x07\.conf:12:1: warning: the exported job writes this sink as CSV' "$scratch/err"
exit 0
