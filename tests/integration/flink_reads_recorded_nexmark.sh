#!/bin/sh
# What wmrun --record-nexmark writes, Flink reads: the benchmark's SQL
# queries on Flink 2.3.0 (flink/peer/'s NexmarkQueries, as
# flink_runs_nexmark_sql.sh runs them) over a recording of 3000 events of
# a topology's Nexmark stream give the rows that awk derives from the
# recording's lines: q0, every bid as it is (numbers, time and extra), and
# q3, the category-10 auctions of sellers in OR, ID and CA, which reads
# the persons' and auctions' members too. So every kind's line is read
# whole, its times as the format's TIMESTAMP(3), and the "partition"
# member is skipped.
#
# About 35 s on the loaded 2-core machine, most of it the JVM (and
# the peer's build, once a build tree). Skipped (77) as flink_lib.sh's
# flink_require says.
. "$srcdir/tests/lib/lib.sh"
. "$srcdir/tests/lib/flink_lib.sh"
flink_require
flink_peer

day=2015-07-15
origin=$(($(date -u -d "$day" +%s) * 1000))
cat >"$scratch/job.conf" <<CONF
[job]
event_time_origin = $day
seed = 11
[source bids]
generator = nexmark
partitions = 4
nexmark.events = 3000
nexmark.rate = 100/s
[window w]
input = bids
size = 10 s
[sink out]
input = w
path = $scratch/unused.csv
CONF
expect_status 0 "$WMRUN" --record-nexmark "$scratch/stream.json" "$scratch/job.conf"
[ "$(wc -l <"$scratch/stream.json")" -eq 3000 ] || fail "not 3000 events recorded"

mkdir "$scratch/results"
timeout 600 java -cp "$PEER_CP" wmrun.peer.NexmarkQueries \
	--recording "$scratch/stream.json" --out "$scratch/results" \
	--parallelism 1 q0 q3 >"$scratch/run.out" 2>"$scratch/run.err" || {
	tail -40 "$scratch/run.err" >&2
	fail "NexmarkQueries failed on the recording"
}

# The members of the kind's object on each line, by name: the generator
# writes letters, digits, spaces, '@' and '.' in its strings, nothing
# to unescape. Times within the origin's day (30 s of it).
awk -v day="$day" -v origin="$origin" -v OFS=, -v OFMT=%.0f -v CONVFMT=%.0f '
	function member(o, name,   p, v) {
		p = index(o, "\"" name "\":")
		v = substr(o, p + length(name) + 3)
		if (substr(v, 1, 1) == "\"") {
			v = substr(v, 2)
			return substr(v, 1, index(v, "\"") - 1)
		}
		match(v, /^-?[0-9]+/)
		return substr(v, 1, RLENGTH)
	}
	function ms(t) {
		if (substr(t, 1, 10) != day) { print "a time off the day: " t >"/dev/stderr"; exit 1 }
		return origin + ((substr(t, 12, 2) * 60 + substr(t, 15, 2)) * 60 + substr(t, 18, 2)) * 1000 + substr(t, 21, 3)
	}
	/^\{"event_type":0,/ {
		o = substr($0, index($0, "\"person\":{"))
		s = member(o, "state")
		if (s == "OR" || s == "ID" || s == "CA")
			who[member(o, "id")] = member(o, "name") OFS member(o, "city") OFS s
	}
	/^\{"event_type":1,/ {
		o = substr($0, index($0, "\"auction\":{"))
		if (member(o, "category") == 10) sold[member(o, "id")] = member(o, "seller")
	}
	/^\{"event_type":2,/ {
		o = substr($0, index($0, "\"bid\":{"))
		print "q0", member(o, "auction"), member(o, "bidder"), member(o, "price"),
			ms(member(o, "dateTime")), member(o, "extra")
	}
	END { for (a in sold) if (sold[a] in who) print "q3", who[sold[a]], a }
' "$scratch/stream.json" >"$scratch/rows" || fail "the recording's lines: $(cat "$scratch/rows")"

for q in q0 q3; do
	{
		head -1 "$scratch/results/$q.csv"
		sed -n "s/^$q,//p" "$scratch/rows" | LC_ALL=C sort
	} >"$scratch/$q.want"
	diff -u "$scratch/$q.want" "$scratch/results/$q.csv" ||
		fail "$q on the recording differs from its lines"
done
[ "$(wc -l <"$scratch/q0.want")" -gt 2000 ] || fail "q0: too few bids"
[ "$(wc -l <"$scratch/q3.want")" -gt 1 ] || fail "q3: no auction of a seller in OR, ID or CA"
