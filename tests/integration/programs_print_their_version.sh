#!/bin/sh
# wmrun, wmbench and wmconform each print the package's version with
# --version and exit 0; a version is no usage error.
. "$srcdir/tests/lib/lib.sh"

: "${WM_VERSION:?the package version, from the harness}"

expect_status 0 "$WMRUN" --version
[ "$(cat "$scratch/out")" = "wmrun $WM_VERSION" ] ||
	fail "wmrun --version printed \"$(cat "$scratch/out")\""
expect_status 0 "$WMBENCH" --version
[ "$(cat "$scratch/out")" = "wmbench (wmrun) $WM_VERSION" ] ||
	fail "wmbench --version printed \"$(cat "$scratch/out")\""
expect_status 0 "$WMCONFORM" --version
[ "$(cat "$scratch/out")" = "wmconform (wmrun) $WM_VERSION" ] ||
	fail "wmconform --version printed \"$(cat "$scratch/out")\""
