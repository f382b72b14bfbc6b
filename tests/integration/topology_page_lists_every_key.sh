#!/bin/sh
# The build makes wmrun-topology.5 from the parser's key table: the page
# renders without a warning, every key in it has a value, a default, a
# Flink equivalent and an example, and it lists every key the parser
# reads by name and every key the examples use (every_example_runs.sh
# runs them, so wmrun --check accepts their keys). wmrun.1 points to it.
. "$srcdir/tests/lib/lib.sh"

command -v groff >/dev/null 2>&1 || {
	echo "SKIP: no groff to render the page (apt-get install groff-base)"
	exit 77
}
dir="$(dirname "$WMRUN")"
page="$dir/wmrun-topology.5"
[ -f "$page" ] || fail "no man page at $page"

# -ww: every warning groff has; the page must give none.
groff -man -Tutf8 -ww -z "$page" 2>"$scratch/warnings" ||
	fail "groff could not render $page: $(cat "$scratch/warnings")"
[ ! -s "$scratch/warnings" ] ||
	fail "groff warns about $page: $(head -5 "$scratch/warnings")"
groff -man -Tascii -P-cbou "$page" >"$scratch/page" 2>"$scratch/warnings" ||
	fail "groff could not render $page as text"
grep -q '^NAME' "$scratch/page" || fail "the rendered page has no NAME"
grep -q 'wmrun(1)' "$scratch/page" || fail "the page does not point to wmrun(1)"
grep -q '^\.BR wmrun\\-topology (5)' "$dir/wmrun.1" ||
	fail "wmrun.1 does not point to wmrun-topology(5)"

# Every key's paragraph (a .TP) has each of its lines, not empty.
awk '
	function check() {
		if (key != "" && (!value || !dflt || !flink || !example)) {
			gsub(/\\f[BIR]|\\/, "", key)
			print key
			bad = 1
		}
	}
	/^\.TP$/ { check(); key = "?"; value = dflt = flink = example = 0; next }
	key == "?" { key = $0; next }
	/^\\fIValue:\\fR ./ { value = 1 }
	/^\\fIDefault:\\fR ./ { dflt = 1 }
	/^\\fIFlink:\\fR ./ { flink = 1 }
	/^    [a-z].* = ./ { example = 1 }
	/^\.SH/ { check(); key = "" }
	END { check(); exit bad }
' "$page" >"$scratch/incomplete" ||
	fail "keys of $page with an empty line: $(cat "$scratch/incomplete")"

# The keys the parser reads by name (a literal, perhaps cut in two): a
# typed getter, a lookup or an entry of one of its own tables (shapes,
# restart keys), and the
# behaviour flags' and alert kinds' names as [job] takes them.
conf="$srcdir/runtime/conf"
perl -0777 -ne '
	print(($1 ? "kafka." : "") . "$2$3\n")
		while /wm_(?:conf_get_\w+|conf_lookup|ini_get)\(\s*l?,?\s*(?:sec|l->global),\s*(KAFKA_PREFIX\s*)?"([a-z0-9_.-]+)"(?:\s*"([a-z0-9_.-]+)")?/g;
	print "$1\n" while /\{SHAPE_\w+, "([a-z_]+)"/g;
	print "$1\n" while /\{"(restart_[a-z_]+)",/g;
	if (/kind_names\[WM_ALERT_KINDS\] = \{(.*?)\};/s) {
		my $kinds = $1;
		print "alert_$1\n" while $kinds =~ /= "([a-z_]+)"/g;
	}
' "$conf"/*.c >"$scratch/read"
sed -n 's/.*{WM_[A-Z_]*, "\([A-Z_]*\)"}.*/\1/p' "$srcdir/operators/behaviour.c" |
	tr 'A-Z' 'a-z' >>"$scratch/read"
grep -q '^size$' "$scratch/read" || fail "no keys found in $conf"
grep -q '^kafka.topic\|^topic$' "$scratch/read" || fail "no source keys found"
# The examples' keys, but Kafka client properties (kafka.NAME.WITH.DOTS),
# which are librdkafka's, passed on as they are.
cat "$srcdir"/examples/*.conf | sed -n 's/^\([a-z][a-z0-9_.-]*\)[ \t]*=.*/\1/p' |
	grep -v '^kafka\.[a-z_]*\..*' >>"$scratch/read"
sort -u "$scratch/read" >"$scratch/keys"
[ "$(wc -l <"$scratch/keys")" -ge 60 ] ||
	fail "only $(wc -l <"$scratch/keys") keys found in the parser and the examples"

# A key's paragraph starts with the key alone, or before its text, at
# the indentation of a tag.
while read -r key; do
	grep -qE "^       $(echo "$key" | sed 's/\./\\./g')( |\$)" "$scratch/page" ||
		fail "key \"$key\" is not in $page"
done <"$scratch/keys"
