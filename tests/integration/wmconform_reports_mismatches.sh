#!/bin/sh
# wmconform can fail: a changed expectation, a malformed or oversized
# trace, a missing file, an empty directory and a bad option each give the
# documented message, naming what is wrong, and exit status.
. "$srcdir/tests/lib/lib.sh"

# One expected watermark changed: FAIL naming the input line, exit 1.
src="$TRACES/valve/testMultipleInputIncreasingWatermarks.valve"
cp "$src" "$scratch/changed.valve"
line=$(grep -n '^> wm 10$' "$scratch/changed.valve" | head -n 1 | cut -d: -f1)
[ -n "$line" ] || fail "fixture trace has no '> wm 10' line"
sed -i "${line}s/> wm 10/> wm 11/" "$scratch/changed.valve"
input=$((line - 1))
expect_status 1 "$WMCONFORM" "$scratch/changed.valve"
expect_line "^FAIL changed.valve line $input: expected \"> wm 11\", got \"> wm 10\"" "$scratch/out"
expect_line '^0 passed, 1 failed$' "$scratch/out"

# A missing output line is reported as "got ... expected nothing".
grep -v '^> wm 10$' "$src" >"$scratch/missing.valve"
expect_status 1 "$WMCONFORM" "$scratch/missing.valve"
expect_line 'expected nothing, got "> wm 10"' "$scratch/out"

# A malformed trace: exit 65 (EX_DATAERR) with the line.
printf 'channels 2\nwm 0 5\nwm 7 5\n' >"$scratch/bad.valve"
expect_status 65 "$WMCONFORM" "$scratch/bad.valve"
expect_line '^FAIL bad.valve line 3: invalid channel "7" \(the valve has channels 0 to 1\)$' "$scratch/out"
printf 'partitions 1\nidle_timeout_ms 5\n' >"$scratch/bad.source"
expect_status 65 "$WMCONFORM" "$scratch/bad.source"
expect_line 'line 2: expected header "out_of_orderness_ms"' "$scratch/out"

header='out_of_orderness_ms 0\nidle_timeout_ms 0\ngenerator bounded\n'

# A bad input line names the field at fault and what is wrong with it.
# bad_valve LINE PATTERN -- "channels 2" then LINE is malformed (65) with a
# message matching PATTERN about line 2.
bad_valve() {
	printf 'channels 2\n%s\n' "$1" >"$scratch/bad.valve"
	expect_status 65 "$WMCONFORM" "$scratch/bad.valve"
	expect_line "^FAIL bad.valve line 2: $2\$" "$scratch/out"
}
bad_valve 'wm 0 0x10' 'invalid watermark "0x10"'
bad_valve 'wm 0 9223372036854775808' 'invalid watermark "9223372036854775808" \(beyond 64 bits\)'
bad_valve 'wm 0 1 2' 'extra field "2"'
bad_valve 'idle 1 7 8 9' 'extra field "7"'
bad_valve 'wm 0' 'missing watermark after "0"'
bad_valve 'wm x 1' 'invalid channel "x"'
bad_valve 'wm 2 1' 'invalid channel "2" \(the valve has channels 0 to 1\)'
bad_valve 'flood 0' 'unrecognized valve input "flood" \(expected wm, idle or active\)'
printf 'channels 2\nwm 0 5\000junk\n' >"$scratch/bad.valve"
expect_status 65 "$WMCONFORM" "$scratch/bad.valve"
expect_line '^FAIL bad.valve line 2: invalid line: NUL byte at column 7$' "$scratch/out"
printf 'channels 2\nwm 0 5\nwm 1 5\n> wm +5\n' >"$scratch/bad.valve"
expect_status 65 "$WMCONFORM" "$scratch/bad.valve"
expect_line '^FAIL bad.valve line 4: invalid watermark "\+5"$' "$scratch/out"
printf "partitions 1\n${header}event 0 12x\n" >"$scratch/bad.source"
expect_status 65 "$WMCONFORM" "$scratch/bad.source"
expect_line '^FAIL bad.source line 5: invalid timestamp "12x"$' "$scratch/out"
# A line is at most 4096 bytes (blanks between the words are no excuse),
# and a file without line ends is refused at its first, not read whole
# into memory first.
{ printf 'channels 1\nwm 0 5'; head -c 5000 /dev/zero | tr '\0' ' '; printf '\n> wm 5\n'; } >"$scratch/long.valve"
expect_status 65 "$WMCONFORM" "$scratch/long.valve"
expect_line '^FAIL long.valve line 2: invalid line: longer than 4096 bytes$' "$scratch/out"
ln -s /dev/zero "$scratch/zero.valve"
expect_status 65 timeout 30 "$WMCONFORM" "$scratch/zero.valve"
expect_line '^FAIL zero.valve line 1: invalid line: longer than 4096 bytes$' "$scratch/out"

# Sizes beyond a wmrun job's are malformed, at once (2e9 partitions took
# for ever to register, 2e9 channels ran out of memory); the largest pass.
printf "partitions 2000000000\n$header" >"$scratch/huge.source"
expect_status 65 timeout 10 "$WMCONFORM" "$scratch/huge.source"
expect_line '^FAIL huge.source line 1: invalid partition count "2000000000" \(0 to 65536' "$scratch/out"
printf "partitions 1\n${header}add 65536\n" >"$scratch/add.source"
expect_status 65 "$WMCONFORM" "$scratch/add.source"
expect_line '^FAIL add.source line 5: cannot add partition 65536 \(numbers are 0 to 65535\)$' "$scratch/out"
printf 'channels 2000000000\nwm 0 1\n' >"$scratch/huge.valve"
expect_status 65 timeout 10 "$WMCONFORM" "$scratch/huge.valve"
expect_line '^FAIL huge.valve line 1: invalid channel count "2000000000" \(1 to 65536' "$scratch/out"
printf 'channels 65536\nwm 65535 5\nidle 0\n' >"$scratch/widest.valve"
expect_status 0 "$WMCONFORM" "$scratch/widest.valve"

# A missing file: exit 66 (EX_NOINPUT), and it outranks a mismatch.
expect_status 66 "$WMCONFORM" "$scratch/changed.valve" "$scratch/nope.valve"
expect_line '^FAIL nope.valve: could not open' "$scratch/out"

# A missing path is unreadable whatever its name (it is not a trace of an
# unknown kind), and says which path.
expect_status 66 "$WMCONFORM" "$scratch/nonexistent"
expect_line "^FAIL nonexistent: could not open \"$scratch/nonexistent\": No such file or directory\$" "$scratch/out"
# A named directory without a trace is no input either, even beside one
# that passes; a nested empty one is just empty.
mkdir -p "$scratch/empty" "$scratch/some/empty"
cp "$src" "$scratch/some/"
expect_status 66 "$WMCONFORM" "$scratch/empty"
expect_line "^wmconform: no .valve or .source files in \"$scratch/empty\"\$" "$scratch/err"
expect_line '^0 passed, 0 failed$' "$scratch/out"
expect_status 66 "$WMCONFORM" "$src" "$scratch/empty"
expect_line '^1 passed, 0 failed$' "$scratch/out"
expect_status 0 "$WMCONFORM" "$scratch/some"
expect_line '^1 passed, 0 failed$' "$scratch/out"
# A directory is walked once however many links lead back to it: two
# links to "." made 2^40 paths (the walk never ended), one replayed every
# trace 41 times.
ln -s . "$scratch/some/again"
ln -s .. "$scratch/some/empty/up"
expect_status 0 timeout 30 "$WMCONFORM" "$scratch/some"
expect_line '^1 passed, 0 failed$' "$scratch/out"

# Bad usage: exit 64 (EX_USAGE).
expect_status 64 "$WMCONFORM"
expect_status 64 "$WMCONFORM" --behaviour released,NO_SUCH_FLAG "$src"
expect_line 'unrecognized behaviour "NO_SUCH_FLAG"' "$scratch/err"
echo "ok"
