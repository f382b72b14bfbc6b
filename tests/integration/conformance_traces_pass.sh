#!/bin/sh
# Every trace recorded from Flink's own classes replays exactly under
# wmconform's default behaviour, flink-2.1: the traces were recorded from
# Flink 2.1's classes (wmrun's own default, flink-2.3, changes some).
. "$srcdir/tests/lib/lib.sh"

n=$(find "$TRACES" -name '*.valve' -o -name '*.source' | wc -l)
[ "$n" -ge 64 ] || fail "only $n traces found under $TRACES"
expect_status 0 "$WMCONFORM" "$TRACES"
expect_line "^$n passed, 0 failed\$" "$scratch/out"
[ "$(grep -c '^PASS ' "$scratch/out")" -eq "$n" ] || fail "not every trace passed"
echo "ok: $n traces"
