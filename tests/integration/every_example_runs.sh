#!/bin/sh
# Every example topology is valid, runs to its end under --sim and
# accounts for every record it reads; wmrun --check plans each of them.
. "$srcdir/tests/integration/lib.sh"

examples=$(cd "$EXAMPLES" && pwd)
n=0
for conf in "$examples"/*.conf; do
	name=$(basename "$conf")
	# Paths in the examples are relative to the top of the source tree.
	sed "s|^replay = examples/|replay = $examples/|" "$conf" >"$scratch/$name"
	expect_status 0 "$WMRUN" --check "$scratch/$name"
	(cd "$scratch" && "$WMRUN" --sim "$name" >"$scratch/out" 2>"$scratch/err") ||
		{ cat "$scratch/err" >&2; fail "$name failed under --sim"; }
	expect_line '^  every record accounted  yes$' "$scratch/err"
	n=$((n + 1))
done
echo "$n examples ran"
[ "$n" -ge 12 ] || fail "only $n examples found"
