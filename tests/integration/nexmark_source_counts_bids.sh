#!/bin/sh
# A Nexmark source (generator = nexmark) counts the stream's bids per
# auction in 10 s windows as the stream itself says they fall: the
# stream recorded by --record-nexmark (the benchmark's JSON lines, every
# event of every kind) is the oracle, read by awk from its event_type 2
# lines' auction and dateTime alone, apart from everything the job does.
# --sim and a real run (2 subtasks over 4 partitions, 50 000 events at
# 1000 events/s, speed 1000) give those counts, every bid read, none
# late. The event-time origin is an instant, so the recording, --sim and
# the real run share the stream's times.
#
# Also refused by --record-nexmark: a topology without a Nexmark source
# (64), and two sources that describe different streams (78, both named).
. "$srcdir/tests/lib/lib.sh"

day=2026-12-07
origin=$(($(date -u -d "$day" +%s) * 1000))
cat >"$scratch/job.conf" <<CONF
[job]
name = nexmark-bids
event_time_origin = $day
speed = 1000
seed = 7
[source bids]
generator = nexmark
parallelism = 2
partitions = 4
nexmark.events = 50000
nexmark.rate = 1000/s
nexmark.kind = bid
nexmark.key = auction
nexmark.value = 1
[window w]
input = bids
size = 10 s
aggregates = count
[sink out]
input = w
path = $scratch/real.csv
CONF
sed "s#$scratch/real.csv#$scratch/sim.csv#" "$scratch/job.conf" >"$scratch/sim.conf"

expect_status 0 "$WMRUN" --record-nexmark "$scratch/stream.json" "$scratch/job.conf"
[ "$(wc -l <"$scratch/stream.json")" -eq 50000 ] ||
	fail "the recording has $(wc -l <"$scratch/stream.json") events, not 50000"

# The oracle: per auction and window start, the bids; their times are
# within the origin's day, 50 s of it.
awk -v day="$day" -v origin="$origin" -v OFS=, -v OFMT=%.0f -v CONVFMT=%.0f '
	/^\{"event_type":2,/ {
		o = substr($0, index($0, "\"bid\":{"))
		a = substr(o, index(o, "\"auction\":") + 10)
		sub(/[^0-9].*/, "", a)
		t = substr(o, index(o, "\"dateTime\":\"") + 12, 23)
		if (substr(t, 1, 10) != day) { print "bad time " t; exit 1 }
		ms = ((substr(t, 12, 2) * 60 + substr(t, 15, 2)) * 60 + substr(t, 18, 2)) * 1000 + substr(t, 21, 3)
		n[a OFS origin + ms - ms % 10000]++
		bids++
	}
	END {
		for (k in n) { split(k, f, OFS); print f[1], f[2], f[2] + 10000, n[k] }
		print bids >"/dev/stderr"
	}' "$scratch/stream.json" 2>"$scratch/bids" | sort >"$scratch/want" ||
	fail "the oracle: $(cat "$scratch/want")"
bids=$(cat "$scratch/bids")
[ "$bids" -gt 40000 ] || fail "only $bids bids in the recording"

expect_status 0 "$WMRUN" --sim --summary "$scratch/sim.json" "$scratch/sim.conf"
expect_line "\"records_read\":$bids," "$scratch/sim.json"
expect_line 'every record accounted  yes' "$scratch/err"
expect_line 'late, dropped +0$' "$scratch/err"
cut -d, -f1-4 "$scratch/sim.csv" | sed 1d | sort >"$scratch/got_sim"
cmp "$scratch/want" "$scratch/got_sim" ||
	fail "--sim's counts differ from the recorded stream's"

expect_status 0 timeout 60 "$WMRUN" --summary "$scratch/real.json" "$scratch/job.conf"
expect_line "\"records_read\":$bids," "$scratch/real.json"
expect_line 'late, dropped +0$' "$scratch/err"
cut -d, -f1-4 "$scratch/real.csv" | sed 1d | sort >"$scratch/got_real"
cmp "$scratch/want" "$scratch/got_real" ||
	fail "the real run's counts differ from the recorded stream's"

# Nothing to record, or two streams in one recording.
printf '[source s]\nrate = 1/s\n' >"$scratch/plain.conf"
expect_status 64 "$WMRUN" --record-nexmark "$scratch/none.json" "$scratch/plain.conf"
expect_line 'has no Nexmark source' "$scratch/err"
cat >"$scratch/two.conf" <<CONF
[source people]
generator = nexmark
nexmark.kind = person
nexmark.events = 1000
[source bids]
generator = nexmark
nexmark.events = 2000
CONF
expect_status 78 "$WMRUN" --record-nexmark "$scratch/two.json" "$scratch/two.conf"
expect_line '^wmrun: .*two\.conf:6:1: source "bids" reads another Nexmark stream than source "people" \(line 2, column 1\)' "$scratch/err"
[ ! -e "$scratch/none.json" ] && [ ! -e "$scratch/two.json" ] ||
	fail "a refused recording left a file"
