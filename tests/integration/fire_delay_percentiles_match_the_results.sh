#!/bin/sh
# The summary's fire-delay percentiles are those of the results the
# windows wrote: from the CSV, each on-time result's fire_time -
# window_end (a delay below 0 counts as 0, as the histogram takes it),
# the p50 and p99 by nearest rank (the ceil(N p / 100)-th smallest of
# N), to the 3 significant digits of the summary's histogram
# (lib/histogram.h, WM_HISTOGRAM_FINE: a value below 2048 ms as it is,
# above cut down to a multiple of 2^(floor(log2 v) - 10)), and the max
# exactly. The JSON gives those milliseconds, the text the same figures
# in the summary's units ("9.0 s", "7 h 59 min"). Under --sim, on a job
# of random silences and on the quick start's (whose p99 of 29400 ms is
# 29392 in the histogram), and in a real run, whose delays are the
# processing time the windows really fired at, to the millisecond.
. "$srcdir/tests/lib/lib.sh"

# expected CSV -- "P50 P99 MAX" in ms, as the summary must give them.
expected() {
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$col["late_firing"] == "false" {
			d = $col["fire_time"] - $col["window_end"]
			print d < 0 ? 0 : d
		}' "$1" | sort -n | awk '
		function fine(v, w) {
			for (w = 1; v >= 2048 * w; w *= 2)
				;
			return v - v % w
		}
		function at(p) { return v[int((NR * p + 99) / 100)] }
		{ v[NR] = $1 }
		END {
			if (NR == 0)
				exit 1
			print fine(at(50)), fine(at(99)), v[NR]
		}'
}

# human MS -- MS as the summary's text writes a duration
# (wm_units_format_duration_ms()).
human() {
	awk -v ms="$1" 'BEGIN {
		s = int(ms / 1000)
		if (ms < 1000) printf "%d ms", ms
		else if (s < 60) printf "%.1f s", ms / 1000
		else if (s < 3600) printf "%d min %d s", s / 60, s % 60
		else printf "%d h %d min", s / 3600, s / 60 % 60
	}'
}

# check WHAT CSV JSON ERR -- the summary (JSON and text) against the CSV.
check() {
	what=$1 csv=$2 json=$3 err=$4
	want=$(expected "$csv") || fail "$what: no on-time result in $csv"
	got=$(sed -n 's/.*"fire_delay_ms":{"p50":\([0-9]*\),"p99":\([0-9]*\),"max":\([0-9]*\)}.*/\1 \2 \3/p' "$json")
	[ "$got" = "$want" ] ||
		fail "$what: JSON fire delays (p50 p99 max) \"$got\", from the results \"$want\""
	set -- $want
	line="  window fire delay       p50 $(human "$1"), p99 $(human "$2"), max $(human "$3")"
	grep -qxF -- "$line" "$err" || {
		cat "$err" >&2
		fail "$what: no line \"$line\" in the summary"
	}
	echo "$what: p50 $1 ms, p99 $2 ms, max $3 ms"
}

cat >"$scratch/job.conf" <<CONF
[job]
name = exact-percentiles
event_time = 10 min
speed = 1200
seed = 11
[source s]
parallelism = 2
partitions = 6
rate = 5/s
out_of_orderness = 1237 ms
keys = 12
idle_timeout = 7 s
silence_random = 0-5 fraction 0.3 mean 40 s
[window w]
input = s
parallelism = 2
size = 10 s
aggregates = count
[sink out]
input = w
parallelism = 2
path = $scratch/out.csv
CONF

expect_status 0 "$WMRUN" --sim --summary "$scratch/sim.json" "$scratch/job.conf"
check sim "$scratch/out.csv" "$scratch/sim.json" "$scratch/err"

expect_status 0 "$WMRUN" --sim --summary "$scratch/quick.json" \
	"$EXAMPLES/quiet_partitions.conf"
mv "$scratch/out" "$scratch/quick.csv"
check "quick start" "$scratch/quick.csv" "$scratch/quick.json" "$scratch/err"

# On --sim's event-time origin (a real run's is the wall clock):
# the same windows.
expect_status 0 timeout 60 "$WMRUN" --set job.event_time_origin=0 --summary "$scratch/real.json" \
	"$scratch/job.conf"
check real "$scratch/out.csv" "$scratch/real.json" "$scratch/err"
