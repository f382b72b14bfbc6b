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
# The synopsis is every form --help gives, one each, and the description
# begins with the description: a usage line wrapped onto a second line
# once went there (help2man takes only "or:" lines as more forms).
expect_status 0 "$WMRUN" --help
forms=$(sed -n '/^Usage:\|^  or:/p' "$scratch/out" | wc -l)
[ "$forms" -ge 4 ] || fail "only $forms forms in --help's usage"
[ "$(sed -n '/^\.SH SYNOPSIS/,/^\.SH DESCRIPTION/p' "$page" | grep -c '^\.B wmrun$')" -eq "$forms" ] ||
	fail "the synopsis of $page has not the $forms forms of --help: $(sed -n '/^\.SH SYNOPSIS/,/^\.SH DESCRIPTION/p' "$page")"
[ "$(sed -n '/^\.SH DESCRIPTION/{n;p;q}' "$page")" = "Run an event\-time stream job with Apache Flink's watermark," ] ||
	fail "the description of $page does not begin with it: $(sed -n '/^\.SH DESCRIPTION/,+2p' "$page")"
! awk '/^Usage:|^  or:/ && length > 79' "$scratch/out" | grep -q . ||
	fail "a usage line of --help is wider than 79 columns"
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
