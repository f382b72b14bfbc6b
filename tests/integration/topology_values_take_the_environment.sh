#!/bin/sh
# A topology's values take ${NAME} and ${NAME:-DEFAULT} from the
# environment (the default where NAME is unset or empty), $$ being one
# '$': a job runs as the file with the values written in would. An unset
# NAME without a default, a malformed ${...} and a value that would hold a
# control character are refused at their line and column (exit 78).
. "$srcdir/tests/lib/lib.sh"

# The same job three ways: values written in, from the environment, and
# from defaults.
cat >"$scratch/plain.conf" <<'CONF'
[job]
name = env-$job
event_time = 2 h
[source s]
partitions = 4
rate = 1/s
idle_timeout = 30 s
silence = 1 from 30 min to 1 h
[window w]
input = s
size = 10 min
[sink o]
input = w
path = "OUT/results.csv"
CONF
sed -e 's|^name = env-\$job|name = env-$$job|' -e 's|^idle_timeout = 30 s|idle_timeout = ${IDLE}|' \
	-e 's|^size = 10 min|size = ${SIZE:-10 min}|' -e 's|"OUT/|"${OUT}/|' \
	"$scratch/plain.conf" >"$scratch/env.conf"
grep -q '^idle_timeout = ${IDLE}$' "$scratch/env.conf" && grep -q '^size = ${SIZE:-10 min}$' "$scratch/env.conf" ||
	fail "the environment's topology was not written: $(cat "$scratch/env.conf")"
mkdir "$scratch/a" "$scratch/b"
sed "s|\"OUT/|\"$scratch/a/|" "$scratch/plain.conf" >"$scratch/plain.a.conf"
expect_status 0 "$WMRUN" --sim "$scratch/plain.a.conf"
comparable_summary "$scratch/err" >"$scratch/want.err"
IDLE="30 s" OUT="$scratch/b" expect_status 0 "$WMRUN" --sim "$scratch/env.conf"
comparable_summary "$scratch/err" >"$scratch/got.err"
[ -s "$scratch/a/results.csv" ] || fail "the plain job wrote no results"
cmp -s "$scratch/a/results.csv" "$scratch/b/results.csv" ||
	fail "values from the environment give other results than values written in"
diff -u "$scratch/want.err" "$scratch/got.err" || fail "values from the environment give another summary"
grep -q 'env-\$job' "$scratch/got.err" || fail "\$\$ did not give one \$ in the job's name"
# An empty SIZE takes the default, a set one its value.
rm -f "$scratch/b/results.csv"
IDLE="30 s" SIZE="" OUT="$scratch/b" expect_status 0 "$WMRUN" --sim --quiet "$scratch/env.conf"
cmp -s "$scratch/a/results.csv" "$scratch/b/results.csv" || fail "an empty SIZE did not take the default"
IDLE="30 s" SIZE="5 min" OUT="$scratch/b" expect_status 0 "$WMRUN" --sim --quiet "$scratch/env.conf"
awk -F, 'NR > 1 && $3 - $2 != 300000 { bad = 1 } END { exit bad }' "$scratch/b/results.csv" ||
	fail "SIZE=5 min did not give 5-minute windows"

# Refused at the value's line and column.
OUT=/tmp expect_status 78 "$WMRUN" --check "$scratch/env.conf"
expect_line 'env\.conf:7:16: environment variable "IDLE" is not set \(\$\{IDLE:-DEFAULT\} gives a default\)$' "$scratch/err"
IDLE="30 s" expect_status 78 "$WMRUN" --check "$scratch/env.conf"
expect_line 'env\.conf:14:8: environment variable "OUT" is not set' "$scratch/err"
IDLE="$(printf '30 s\033[2J')" OUT=/tmp expect_status 78 "$WMRUN" --check "$scratch/env.conf"
expect_line 'env\.conf:7:16: the value from the environment holds a control character' "$scratch/err"
! grep -q "$(printf '\033')" "$scratch/err" || fail "the escape reached the message"
printf '[source s]\nrate = 1/s\nidle_timeout = 30 s ${1DLE}\n[window w]\ninput = s\nsize = ${SIZE:-1 min\n' >"$scratch/bad.conf"
expect_status 78 "$WMRUN" --check "$scratch/bad.conf"
expect_line 'bad\.conf:3:21: expected \$\{NAME\} or \$\{NAME:-DEFAULT\}' "$scratch/err"
sed -i 's/ ${1DLE}//' "$scratch/bad.conf"
expect_status 78 "$WMRUN" --check "$scratch/bad.conf"
expect_line 'bad\.conf:6:8: "\$\{" without its "\}"$' "$scratch/err"
exit 0
