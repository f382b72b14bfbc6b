#!/bin/sh
# The build makes wmrun.1 from the wmrun beside it: the page carries its
# version, its synopsis, and every option and exit status its --help
# lists.
. "$srcdir/tests/lib/lib.sh"

: "${WM_VERSION:?the package version, from the harness}"
page="$(dirname "$WMRUN")/wmrun.1"
[ -f "$page" ] || fail "no man page at $page"

expect_line "^\.TH WMRUN \"1\" .* \"wmrun $WM_VERSION\"" "$page"
expect_line '^\.SH SYNOPSIS' "$page"
# roff writes each "-" of an option as "\-".
expect_status 0 "$WMRUN" --help
grep -oE -- '--[a-z]+' "$scratch/out" | sort -u >"$scratch/options"
[ -s "$scratch/options" ] || fail "no options in --help"
while read -r opt; do
	grep -qF -- "$(echo "$opt" | sed 's/-/\\-/g')" "$page" ||
		fail "option $opt of --help is not in $page"
done <"$scratch/options"
sed -n '/^Exit status:/,$p' "$scratch/out" |
	awk '/^  [0-9]/ { print $1 }' >"$scratch/codes"
[ -s "$scratch/codes" ] || fail "no exit statuses in --help"
while read -r code; do
	grep -qxF -- "$code" "$page" ||
		fail "exit status $code of --help is not in $page"
done <"$scratch/codes"
