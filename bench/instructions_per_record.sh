#!/bin/sh
# instructions_per_record.sh -- what the engine pays a record: the
# instructions of a --sim run of a job under callgrind, over the records
# it read. --sim has no clock, so the count is the same on every run and
# on any machine load: the one figure of speed a loaded machine can
# compare across builds (wall-clock figures are wmbench's).
#
#   sh bench/instructions_per_record.sh [WMRUN [CONF [PROFILE]]]
#
# WMRUN defaults to ./_build/wmrun, CONF to bench/pipeline_sim.conf
# (issue 26's job). With PROFILE, callgrind's profile is kept there for
# callgrind_annotate. Prints one line: INSTRUCTIONS RECORDS PER_RECORD.
# Needs valgrind (Debian's package of that name).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
wmrun=${1:-./_build/wmrun}
conf=${2:-"$here/pipeline_sim.conf"}
profile=${3:-/dev/null}
case $wmrun in /*) ;; *) wmrun=$PWD/$wmrun ;; esac
case $conf in /*) ;; *) conf=$PWD/$conf ;; esac
command -v valgrind >/dev/null || {
	echo "instructions_per_record.sh: valgrind is not installed" >&2
	exit 69
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Relative outputs of the job land in the scratch directory.
(cd "$work" && valgrind --tool=callgrind --callgrind-out-file="$profile" \
	"$wmrun" --sim --live=never --summary summary.json "$conf" \
	>/dev/null 2>callgrind.err) || {
	cat "$work/callgrind.err" >&2
	exit 1
}
instructions=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$work/callgrind.err")
records=$(grep -o '"records_read":[0-9]*' "$work/summary.json" | cut -d: -f2)
awk -v i="$instructions" -v n="$records" \
	'BEGIN { printf "%d %d %.1f\n", i, n, i / n }'
