#!/bin/sh
# wmrun --help and the README's wmrun row list every exit status of the
# table in base/exit.h, the one place the codes are decided, and no
# other; and the table holds every sysexits code wmrun's sources give (a
# sysexits name anywhere in tools/wmrun, runtime or operators), so that a
# new one cannot go undocumented (73 and 77 did).
. "$srcdir/tests/lib/lib.sh"

awk '/^ \*   [0-9]/ { print $2 }' "$srcdir/base/exit.h" >"$scratch/codes"
[ "$(wc -l <"$scratch/codes")" -ge 10 ] ||
	fail "exit.h's table not found: $(cat "$scratch/codes")"

expect_status 0 "$WMRUN" --help
sed -n '/^Exit status:/,$p' "$scratch/out" >"$scratch/help"
grep -F 'wmrun [--sim]' "$srcdir/README.md" >"$scratch/readme" ||
	fail "no wmrun row in README.md"
awk '/^  [0-9]/ { print $1 }' "$scratch/help" >"$scratch/listed"
while read -r code; do
	grep -qxF -- "$code" "$scratch/listed" ||
		fail "--help does not list exit status $code: $(cat "$scratch/help")"
	grep -qF -- " $code " "$scratch/readme" ||
		fail "README.md's wmrun row does not list exit status $code"
done <"$scratch/codes"
while read -r code; do
	grep -qxF -- "$code" "$scratch/codes" ||
		fail "--help lists exit status $code, which exit.h does not"
done <"$scratch/listed"
for name in $(cat "$srcdir"/tools/wmrun/*.c "$srcdir"/runtime/*/*.c "$srcdir"/operators/*.c |
	grep -o 'EX_[A-Z]*' | sort -u); do
	code=$(awk -v n="$name" '$1 == "#define" && $2 == n { print $3 }' /usr/include/sysexits.h)
	[ -n "$code" ] && [ "$code" != 0 ] || continue # EX__BASE, EX_OK
	grep -qxF -- "$code" "$scratch/codes" ||
		fail "wmrun's sources give $name ($code), which exit.h's table does not list"
done
