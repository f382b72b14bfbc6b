#!/bin/sh
# The Nexmark queries wmrun runs from examples/nexmark/, against the
# benchmark's own SQL on Flink 2.3.0 (flink/peer's NexmarkQueries) over
# the same events: wmrun records its Nexmark stream (--record-nexmark) as
# the benchmark's JSON lines, Flink reads them at parallelism 1 and 2 (one
# JVM, one MiniCluster), and wmrun runs each query's topology under --sim
# and for real.
#
# - q0, q1 and q2 (every bid as it is; its price in euros, a DECIMAL;
#   the bids of every 123rd auction): wmrun's maps, under --sim and in a
#   real run, write Flink's rows, header and all, at both parallelisms;
# - What --record-nexmark writes, Flink reads: q0 (every bid as it is:
#   numbers, time and extra) and q3 (the category-10 auctions of sellers
#   in OR, ID and CA, which reads persons' and auctions' members too)
#   give the rows awk derives from the recording's lines, so every kind's
#   line is read whole, its times as TIMESTAMP(3), and the "partition"
#   member is skipped;
# - q11 (sessions of each bidder's bids, gap 10 s): every event-time
#   session, row for row (bidder, bid_count, starttime, endtime), sorted,
#   equal to Flink's at both parallelisms, under --sim and in a real run
#   (no bid is late: every partition's events ascend, and the watermark
#   is 4 s behind, the benchmark's);
# - q12 (each bidder's bids per 10 s of processing time): what does not
#   hang on timing: each bidder's total over the run equals Flink's and
#   the recording's; every window is 10 s long on the 10 s grid; and the
#   windows number as the stream's 12 s of processing time cover them.
#
# 120 000 events (110 400 bids over 12 s of event time) keep the JVM's
# part near a minute on the loaded 2-core machine; Flink's q12 waits for
# its last window to close, up to 10 s a parallelism. Skipped (77) as
# flink_lib.sh's flink_require says.
. "$srcdir/tests/lib/lib.sh"
. "$srcdir/tests/lib/flink_lib.sh"
flink_require
flink_peer

events=120000
nexmark=$EXAMPLES/nexmark

# run QUERY MODE: wmrun's run of the query's example (MODE "--sim" or
# "real") on the events of this test, its results in $scratch/QUERY.MODE.csv.
run() {
	# shellcheck disable=SC2046
	expect_status 0 "$WMRUN" $([ "$2" = real ] || echo --sim) --quiet \
		--set bids.nexmark.events=$events \
		--set "out.path=$scratch/$1.$2.csv" "$nexmark/$1.conf"
}

# The stream, as the Flink side reads it: one recording serves both
# queries, whose sources describe the same stream.
expect_status 0 "$WMRUN" --record-nexmark "$scratch/recording.json" \
	--set bids.nexmark.events=$events "$nexmark/q11.conf"
[ "$(wc -l <"$scratch/recording.json")" -eq "$events" ] ||
	fail "the recording has $(wc -l <"$scratch/recording.json") lines, not $events"
bids=$(grep -c '"event_type":2' "$scratch/recording.json")

mkdir "$scratch/flink"
start=$(date +%s)
timeout 600 java -cp "$PEER_CP" wmrun.peer.NexmarkQueries \
	--recording "$scratch/recording.json" --out "$scratch/flink" \
	--parallelism 1,2 q0 q1 q2 q3 q11 q12 >"$scratch/flink.out" 2>"$scratch/flink.err" || {
	tail -40 "$scratch/flink.err" >&2
	fail "NexmarkQueries failed"
}
echo "NexmarkQueries: $(($(date +%s) - start)) s"
grep '^nexmark ' "$scratch/flink.err"

# q0 and q3 from the recording's lines: the members of the kind's object
# on each line, by name (the generator writes letters, digits, spaces,
# '@' and '.' in its strings, nothing to unescape), times within the
# origin's day.
day=2015-07-15
origin=$(($(date -u -d "$day" +%s) * 1000))
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
' "$scratch/recording.json" >"$scratch/lines" || fail "the recording's lines: $(cat "$scratch/lines")"
for q in q0 q3; do
	sed -n "s/^$q,//p" "$scratch/lines" | LC_ALL=C sort >"$scratch/$q.want"
	for p in 1 2; do
		tail -n +2 "$scratch/flink/p$p/$q.csv" | diff -u "$scratch/$q.want" - >"$scratch/diff" || {
			head -20 "$scratch/diff" >&2
			fail "$q at parallelism $p on the recording differs from its lines"
		}
	done
done
[ "$(wc -l <"$scratch/q0.want")" -eq "$bids" ] || fail "q0: not every bid"
[ "$(wc -l <"$scratch/q3.want")" -gt 1 ] || fail "q3: no auction of a seller in OR, ID or CA"
echo "q0 and q3: Flink's rows at p1 and p2 are the recording's lines ($bids bids, $(wc -l <"$scratch/q3.want") auctions)"

# q0, q1, q2: wmrun's rows are Flink's, the header too (the SELECT's
# names), the rows sorted as the runner sorts them.
for q in q0 q1 q2; do
	for mode in --sim real; do
		run "$q" "$mode"
		{
			head -n 1 "$scratch/$q.$mode.csv"
			tail -n +2 "$scratch/$q.$mode.csv" | LC_ALL=C sort
		} >"$scratch/$q.$mode.rows"
		[ "$(wc -l <"$scratch/$q.$mode.rows")" -gt 1 ] || fail "$q $mode: no row"
		for p in 1 2; do
			diff "$scratch/flink/p$p/$q.csv" "$scratch/$q.$mode.rows" >"$scratch/diff" || {
				head -20 "$scratch/diff" >&2
				fail "$q $mode: rows differ from Flink's at parallelism $p"
			}
		done
		echo "$q $mode: $(($(wc -l <"$scratch/$q.$mode.rows") - 1)) rows, Flink's at p1 and p2"
	done
done

# wmrun's window results as the query's rows: key, count, window_start,
# window_end (bidder, bid_count, starttime, endtime), sorted as the
# runner sorts (LC_ALL=C).
as_rows() {
	awk -F, 'NR == 1 { for (c = 1; c <= NF; c++) col[$c] = c; next }
	{ print $col["key"] "," $col["count"] "," $col["window_start"] "," $col["window_end"] }' "$1" |
		LC_ALL=C sort
}

# q11, row for row.
for mode in --sim real; do
	run q11 "$mode"
	as_rows "$scratch/q11.$mode.csv" >"$scratch/q11.$mode.rows"
	[ -s "$scratch/q11.$mode.rows" ] || fail "q11 $mode: no session"
	for p in 1 2; do
		tail -n +2 "$scratch/flink/p$p/q11.csv" >"$scratch/q11.flink$p.rows"
		diff "$scratch/q11.flink$p.rows" "$scratch/q11.$mode.rows" >"$scratch/diff" || {
			head -20 "$scratch/diff" >&2
			fail "q11 $mode: sessions differ from Flink's at parallelism $p"
		}
	done
	echo "q11 $mode: $(wc -l <"$scratch/q11.$mode.rows") sessions, Flink's at p1 and p2"
done
awk -F, '{ n += $2 } END { exit n != bids }' bids="$bids" "$scratch/q11.real.rows" ||
	fail "q11: the sessions do not count the recording's $bids bids"

# q12: per bidder, its bids over the run.
totals() { awk -F, '{ n[$1] += $2 } END { for (b in n) print b "," n[b] }' "$1" | LC_ALL=C sort; }
grep '"event_type":2' "$scratch/recording.json" |
	sed 's/.*"bidder":\([0-9]*\),.*/\1,1/' >"$scratch/bidders"
totals "$scratch/bidders" >"$scratch/q12.want"
for mode in --sim real; do
	run q12 "$mode"
	as_rows "$scratch/q12.$mode.csv" >"$scratch/q12.$mode.rows"
	totals "$scratch/q12.$mode.rows" >"$scratch/q12.$mode.totals"
	diff "$scratch/q12.want" "$scratch/q12.$mode.totals" >"$scratch/diff" || {
		head -20 "$scratch/diff" >&2
		fail "q12 $mode: per-bidder totals differ from the recording's"
	}
	# Windows of 10 s on the grid, as many as the stream's 12 s of
	# processing time (at its speed) cover, within one.
	awk -F, '($4 - $3 != 10000) || ($3 % 10000 != 0) { exit 1 }' "$scratch/q12.$mode.rows" ||
		fail "q12 $mode: a window is not 10 s on the 10 s grid"
	windows=$(cut -d, -f3 "$scratch/q12.$mode.rows" | sort -u | wc -l)
	[ "$windows" -ge 1 ] && [ "$windows" -le 3 ] ||
		fail "q12 $mode: $windows windows for 12 s of processing time"
	echo "q12 $mode: $(wc -l <"$scratch/q12.$mode.rows") rows in $windows windows, each bidder's total the recording's"
done
for p in 1 2; do
	tail -n +2 "$scratch/flink/p$p/q12.csv" >"$scratch/q12.flink$p.rows"
	totals "$scratch/q12.flink$p.rows" >"$scratch/q12.flink$p.totals"
	diff "$scratch/q12.want" "$scratch/q12.flink$p.totals" >/dev/null ||
		fail "q12: Flink's per-bidder totals at parallelism $p differ from the recording's"
done
echo "q12: Flink's per-bidder totals at p1 and p2 are the recording's and wmrun's"
exit 0
