#!/bin/sh
# The Nexmark benchmark's queries q0 q1 q2 q3 q5 q7 q8 q11 q12, as the
# benchmark's SQL defines them, on Flink 2.3.0's MiniCluster
# (flink/peer/'s NexmarkQueries), over a small recording written here in
# the layout wmrun's Nexmark source records (the runner's header): 7
# persons in OR, CA, WA and ID, 9 auctions in categories 10 and 11, 208
# bids over 60 s of event time, among them bids on auctions 1107 and 1230
# (multiples of 123) and others, a tie at the top price of one 10 s
# window and a bid on the window's end at that price, and bidders whose
# bids pause for 17 s and for exactly 10 s. Each line carries wmrun's
# "partition" member, which the json format must skip.
#
# Every query's rows, at parallelism 1 and 2 in one JVM, must equal the
# rows that a rule derives from the recording (awk over its lines; each
# rule is written beside its query below). q12 counts bids in windows of
# processing time, which no rule can place: per bidder, its windows must
# count the bidder's bids, each window 10 s on the 10 s grid.
#
# The runner refuses an unknown query, a parallelism of 0 and a missing
# recording with its exit statuses.
#
# 45 to 57 s on the loaded 2-core machine (load average 2.5 to 6; the
# JVM 36 to 56 s of it), the peer's build included (about 10 s, once a
# build tree: flink_peer); up to 20 s of the JVM's time is q12 waiting
# for its windows to close. Skipped (77) as flink_lib.sh's
# flink_require says.
. "$srcdir/tests/lib/lib.sh"
. "$srcdir/tests/lib/flink_lib.sh"
flink_require
flink_peer

rec=$scratch/recording.json

# The recording. Persons and auctions from the table below, bids from a
# loop (a bid every 300 ms from 200 ms on: auction and bidder drawn
# with a small LCG among six auctions and bidders 1000-1006, a price from
# 100 to 5099) plus the special bids, all sorted by event time (sort -s:
# equal times keep their order), on the day 2015-07-15 (UTC).
awk 'function ts(ms) {
		return sprintf("\"2015-07-15 %02d:%02d:%02d.%03d\"",
			int(ms / 3600000), int(ms / 60000) % 60,
			int(ms / 1000) % 60, ms % 1000)
	}
	function person_line(t, id, name, city, state) {
		printf "%d\t{\"event_type\":0,\"person\":{\"id\":%d,\"name\":\"%s\",", t, id, name
		printf "\"emailAddress\":\"p%d@mail.com\",\"creditCard\":\"1111 2222 3333 %04d\",", id, id
		printf "\"city\":\"%s\",\"state\":\"%s\",\"dateTime\":%s,", city, state, ts(t)
		printf "\"extra\":\"\"},\"auction\":null,\"bid\":null,\"partition\":%d}\n", id % 4
	}
	function auction_line(t, id, seller, category) {
		printf "%d\t{\"event_type\":1,\"person\":null,\"auction\":{\"id\":%d,", t, id
		printf "\"itemName\":\"item %d\",\"description\":\"for sale\",", id
		printf "\"initialBid\":100,\"reserve\":200,\"dateTime\":%s,", ts(t)
		printf "\"expires\":%s,\"seller\":%d,\"category\":%d,", ts(t + 20000), seller, category
		printf "\"extra\":\"a%d\"},\"bid\":null,\"partition\":%d}\n", id, id % 4
	}
	function bid_line(t, auction, bidder, price, extra) {
		printf "%d\t{\"event_type\":2,\"person\":null,\"auction\":null,\"bid\":{", t
		printf "\"auction\":%d,\"bidder\":%d,\"price\":%d,", auction, bidder, price
		printf "\"channel\":null,\"url\":null,\"dateTime\":%s,", ts(t)
		printf "\"extra\":\"%s\"},\"partition\":%d}\n", extra, auction % 4
	}
	$1 == "person" { person_line($2, $3, $4, $5, $6) }
	$1 == "auction" { auction_line($2, $3, $4, $5) }
	$1 == "bid" { bid_line($2, $3, $4, $5, $6) }
	END {
		split("1000 1001 1002 1107 1230 1005", auctions, " ")
		x = 7
		for (i = 0; i < 200; i++) {
			x = (x * 75 + 74) % 65537
			a = auctions[1 + x % 6]
			b = 1000 + int(x / 6) % 7
			x = (x * 75 + 74) % 65537
			# every 7th extra with a quote and a comma, JSON-escaped
			e = i % 7 == 3 ? "say \\\"hi\\\", " i : "e" i
			bid_line(200 + i * 300, a, b, 100 + x % 5000, e)
		}
	}' FS='|' >"$scratch/events" <<'EVENTS' || fail "no recording"
person|0|1000|Peter Shultz|Bend|OR
auction|500|1000|1000|10
person|1000|1001|Paul Abrams|Los Angeles|CA
auction|1500|1001|1001|11
person|2000|1002|Luke Spencer|Seattle|WA
auction|2500|1002|1002|10
person|3000|1003|Kate White, Jr.|Boise|ID
auction|3500|1003|1003|10
bid|4000|1107|1001|9000|top
bid|5000|1001|1010|150|s1
bid|7000|1230|1002|9000|tie
bid|8000|1002|1010|160|s1
bid|10000|1000|1003|9000|on the end
auction|11000|1004|1000|10
person|12500|1004|Julie Jones|Portland|OR
auction|13000|1005|1004|10
auction|20000|1007|1009|10
bid|25000|1005|1010|170|s2
bid|30000|1001|1011|180|g1
person|31000|1005|Saul Smith|Kent|WA
auction|33000|1008|1005|11
auction|40000|1006|1006|10
bid|40000|1000|1011|190|g1
person|45000|1006|Sarah Noris|San Francisco|CA
EVENTS
sort -t "$(printf '\t')" -k1,1n -s "$scratch/events" | cut -f2- >"$rec"
[ "$(wc -l <"$rec")" -eq 224 ] || fail "the recording has $(wc -l <"$rec") lines"

mkdir "$scratch/results"
start=$(date +%s)
timeout 600 java -cp "$PEER_CP" wmrun.peer.NexmarkQueries --recording "$rec" \
	--out "$scratch/results" --parallelism 1,2 q0 q1 q2 q3 q5 q7 q8 q11 q12 \
	>"$scratch/run.out" 2>"$scratch/run.err" || {
	tail -40 "$scratch/run.err" >&2
	fail "NexmarkQueries failed"
}
echo "NexmarkQueries: $(($(date +%s) - start)) s"
cat "$scratch/run.err"

# The recording as tab-separated fields, by the layout alone:
#   P  time  id  name  city  state       (person)
#   A  time  id  seller  category        (auction)
#   B  time  auction  bidder  price  extra   (bid)
# time as epoch milliseconds, name, city and extra as CSV fields (the
# runner's quoting) after undoing JSON's escapes. OFMT and CONVFMT here
# and below: mawk writes an integer past 2^31 with "%.6g" otherwise.
awk 'function unescape(s,   out, i) {
		while ((i = index(s, "\\")) > 0) {
			out = out substr(s, 1, i - 1) substr(s, i + 1, 1)
			s = substr(s, i + 2)
		}
		return out s
	}
	function str(o, key,   p, s, i, c) {
		p = index(o, "\"" key "\":\"")
		if (p == 0) return ""
		s = substr(o, p + length(key) + 4)
		for (i = 1; (c = substr(s, i, 1)) != "\""; i++)
			if (c == "\\") i++
		return unescape(substr(s, 1, i - 1))
	}
	function num(o, key,   p) {
		p = index(o, "\"" key "\":")
		if (p == 0) return ""
		o = substr(o, p + length(key) + 3)
		match(o, /^-?[0-9]+/)
		return substr(o, 1, RLENGTH)
	}
	function epoch(s,   y, m, d, days) {
		y = substr(s, 1, 4) + 0; m = substr(s, 6, 2) + 0; d = substr(s, 9, 2) + 0
		if (m <= 2) { y--; m += 12 }
		days = 365 * y + int(y / 4) - int(y / 100) + int(y / 400) \
			+ int((153 * (m - 3) + 2) / 5) + d - 719469
		return ((days * 24 + substr(s, 12, 2)) * 60 + substr(s, 15, 2)) * 60000 \
			+ substr(s, 18, 2) * 1000 + substr(s, 21, 3)
	}
	function csv(s) {
		if (s !~ /[,"\r\n]/) return s
		gsub(/"/, "\"\"", s)
		return "\"" s "\""
	}
	{
		type = num($0, "event_type")
		o = substr($0, index($0, "\"" (type == 0 ? "person" : type == 1 ? "auction" : "bid") "\":{"))
		t = epoch(str(o, "dateTime"))
		if (type == 0)
			print "P", t, num(o, "id"), csv(str(o, "name")), csv(str(o, "city")), str(o, "state")
		else if (type == 1)
			print "A", t, num(o, "id"), num(o, "seller"), num(o, "category")
		else
			print "B", t, num(o, "auction"), num(o, "bidder"), num(o, "price"), csv(str(o, "extra"))
	}' OFS='\t' OFMT=%.0f CONVFMT=%.0f "$rec" >"$scratch/fields"
[ "$(grep -c '^B' "$scratch/fields")" -eq 208 ] || fail "the fields of the recording: $(cat "$scratch/fields")"

# rule QUERY HEADER AWK: QUERY's expected file, HEADER then the rows that
# the awk program AWK prints from the fields, sorted by bytes.
rule() {
	{
		echo "$2"
		awk -F '\t' -v OFS=, -v OFMT=%.0f -v CONVFMT=%.0f "$3" \
			"$scratch/fields" | LC_ALL=C sort
	} >"$scratch/$1.want"
}

# q0: every bid, as it is.
rule q0 auction,bidder,price,dateTime,extra \
	'$1 == "B" { print $3, $4, $5, $2, $6 }'
# q1: every bid, its price times 0.908, a decimal of scale 3.
rule q1 auction,bidder,price,dateTime,extra \
	'$1 == "B" { m = $5 * 908; printf "%s,%s,%d.%03d,%s,%s\n", $3, $4, int(m / 1000), m % 1000, $2, $6 }'
# q2: the bids on auctions whose id is a multiple of 123.
rule q2 auction,price \
	'$1 == "B" && $3 % 123 == 0 { print $3, $5 }'
# q3: every category-10 auction whose seller is a person in OR, ID or
# CA, whichever came first (a join without windows).
rule q3 name,city,state,id \
	'$1 == "P" && ($6 == "OR" || $6 == "ID" || $6 == "CA") { who[$3] = $4 OFS $5 OFS $6 }
	 $1 == "A" && $5 == 10 { sold[$3] = $4 }
	 END { for (a in sold) if (sold[a] in who) print who[sold[a]], a }'
# q5: in each window of 10 s that starts on a multiple of 2 s, the
# auctions with the most bids, with that count.
rule q5 auction,num \
	'$1 == "B" {
		for (s = $2 - $2 % 2000 - 8000; s <= $2; s += 2000) {
			n[s, $3]++
			if (n[s, $3] > top[s]) top[s] = n[s, $3]
		}
	 }
	 END { for (k in n) { split(k, f, SUBSEP); if (n[k] == top[f[1]]) print f[2], n[k] } }'
# q7: for each 10 s window [s, s + 10 s) with bids, the bids at its top
# price from s to s + 10 s, both ends included (BETWEEN): a bid on a
# window's end at the window's top price is there twice, once for the
# window before it. The benchmark's columns: price before bidder.
rule q7 auction,price,bidder,dateTime,extra \
	'$1 == "B" { s = $2 - $2 % 10000; if (!(s in top) || $5 > top[s]) top[s] = $5; b[NR] = $0 }
	 END {
		for (s in top) for (i in b) {
			split(b[i], f, "\t")
			if (f[5] == top[s] && f[2] >= s + 0 && f[2] <= s + 10000)
				print f[3], f[5], f[4], f[2], f[6]
		}
	 }'
# q8: the persons who joined in a 10 s window and sold an auction in the
# same window, in either order, with the window's start.
rule q8 id,name,starttime \
	'$1 == "P" { joined[$3, $2 - $2 % 10000] = $4 }
	 $1 == "A" { sold[$4, $2 - $2 % 10000] }
	 END { for (k in sold) if (k in joined) { split(k, f, SUBSEP); print f[1], joined[k], f[2] } }'
awk -F '\t' '$1 == "B"' "$scratch/fields" | sort -t "$(printf '\t')" -k4,4n -k2,2n \
	>"$scratch/bids_by_bidder"
# q11: each bidder's sessions: bids in time order, a new session after a
# pause of more than 10 s (Flink's session windows, [t, t + 10 s) a bid,
# merge when they overlap or touch); its start the first bid's time, its
# end the last one's plus 10 s.
{
	echo bidder,bid_count,starttime,endtime
	awk -F '\t' -v OFS=, -v OFMT=%.0f -v CONVFMT=%.0f '
		function close_session() { if (n) print bidder, n, first, last + 10000 }
		$4 != bidder || $2 > last + 10000 { close_session(); bidder = $4; n = 0; first = $2 }
		{ n++; last = $2 }
		END { close_session() }' "$scratch/bids_by_bidder" | LC_ALL=C sort
} >"$scratch/q11.want"

# The cases the recording is for are there.
[ "$(grep -c ',9000,' "$scratch/q7.want")" -eq 4 ] || fail "q7: no tie and no bid on the end"
[ "$(grep -c '^1010,' "$scratch/q11.want")" -eq 2 ] || fail "q11: bidder 1010 has no two sessions"
grep -q '^1011,2,' "$scratch/q11.want" || fail "q11: bidder 1011's bids 10 s apart are not one session"
# q3: the auctions of sellers in OR (3), ID and CA (1 each); not WA's.
[ "$(wc -l <"$scratch/q3.want")" -eq 6 ] || fail "q3: not 5 rows"
grep -q '"Kate White, Jr."' "$scratch/q3.want" || fail "q3: no quoted name"
grep -q '^1006,' "$scratch/q8.want" || fail "q8: no auction before its seller joined"
[ "$(wc -l <"$scratch/q2.want")" -ge 20 ] || fail "q2: too few rows"

for p in 1 2; do
	for q in q0 q1 q2 q3 q5 q7 q8 q11; do
		diff -u "$scratch/$q.want" "$scratch/results/p$p/$q.csv" ||
			fail "$q at parallelism $p differs from its rule"
	done
	expect_line "^nexmark q0 p$p: rows=208 wall_ms=[0-9]+\$" "$scratch/run.err"
	# q12: per bidder, its windows count its bids; each window is 10 s
	# on the 10 s grid.
	awk -F, 'NR > 1 && ($4 - $3 != 10000 || $3 % 10000 != 0) { print "bad window: " $0 }
		NR > 1 { n[$1] += $2 }
		END { for (b in n) print b, n[b] }' "$scratch/results/p$p/q12.csv" |
		LC_ALL=C sort >"$scratch/q12.got"
	awk -F '\t' '{ n[$4]++ } END { for (b in n) print b, n[b] }' "$scratch/bids_by_bidder" |
		LC_ALL=C sort >"$scratch/q12.want"
	diff -u "$scratch/q12.want" "$scratch/q12.got" ||
		fail "q12 at parallelism $p: its windows do not count each bidder's bids"
done
grep -q 'updates_or_retractions' "$scratch/run.err" &&
	fail "a query emitted updates or retractions"

# What the runner refuses, before any cluster starts.
expect_status 64 java -cp "$PEER_CP" wmrun.peer.NexmarkQueries --recording "$rec" \
	--out "$scratch/results" q4
expect_line 'unknown argument "q4"' "$scratch/err"
expect_status 64 java -cp "$PEER_CP" wmrun.peer.NexmarkQueries --recording "$rec" \
	--out "$scratch/results" --parallelism 0 q0
expect_status 66 java -cp "$PEER_CP" wmrun.peer.NexmarkQueries --recording \
	"$scratch/none.json" --out "$scratch/results" q0
exit 0
