#!/bin/sh
# A window may feed many sinks (up to WM_TOPOLOGY_MAX_OUTPUTS out edges):
# each one gets every result, in a real run as with --sim. A real run once
# served only the first 16 out edges of a window and left the other sinks
# with their header line, exit 0.
. "$srcdir/tests/lib/lib.sh"

sinks=20
{
	printf '[job]\nevent_time = 2 min\nspeed = 600\n'
	printf '[source s]\npartitions = 2\nrate = 10/s\nkeys = 3\n'
	printf '[window w]\ninput = s\nsize = 10 s\n'
	for i in $(seq $sinks); do
		printf '[sink o%d]\ninput = w\npath = %s/o%d.csv\n' "$i" "$scratch" "$i"
	done
} >"$scratch/job.conf"

for mode in --sim real; do
	rm -f "$scratch"/o*.csv
	if [ "$mode" = real ]; then
		expect_status 0 "$WMRUN" "$scratch/job.conf"
	else
		expect_status 0 "$WMRUN" --sim "$scratch/job.conf"
	fi
	rows=$(($(wc -l <"$scratch/o1.csv") - 1))
	[ "$rows" -gt 0 ] || fail "$mode: sink o1 has no results"
	for i in $(seq 2 $sinks); do
		n=$(($(wc -l <"$scratch/o$i.csv") - 1))
		[ "$n" -eq "$rows" ] ||
			fail "$mode: sink o$i has $n results, o1 has $rows"
	done
done

# More out edges than a stage can have is an error, not a silent cut.
{
	printf '[source s]\n[window w]\ninput = s\nsize = 10 s\n'
	for i in $(seq 65); do
		printf '[sink o%d]\ninput = w\n' "$i"
	done
} >"$scratch/too_many.conf"
expect_status 78 "$WMRUN" --check "$scratch/too_many.conf"
expect_line 'too_many.conf:[0-9]+:9: invalid value for "input" in \[sink o65\]: "w" feeds 64 stages already' "$scratch/err"
