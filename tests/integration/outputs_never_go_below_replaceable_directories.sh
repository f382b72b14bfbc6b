#!/bin/sh
# An output is never written below a directory that another user could
# replace: a symbolic link of another user's in a world-writable sticky
# directory (as /tmp) is not followed, nor is a directory of another
# user's there written into (they could rename it and put a link in its
# place after the check), for every output: the sink, the late side
# output, --summary, --record-trace, --report, --metrics, --sweep-csv.
# The file the link led to is left untouched, with fs.protected_symlinks
# off (the test turns it off for its run if it can). Our own directories
# and links there are used as ever. A root job used to overwrite a
# root-owned file through another user's directory link: only a link at
# the output's own name was refused.
. "$srcdir/tests/lib/lib.sh"

if [ "$(id -u)" -ne 0 ] || ! id nobody >/dev/null 2>&1; then
	echo "SKIP: needs root and the user nobody (to plant another user's link)"
	exit 77
fi
sysctl=/proc/sys/fs/protected_symlinks
old=$(cat "$sysctl" 2>/dev/null || echo)
if [ -n "$old" ] && [ "$old" != 0 ]; then
	echo 0 >"$sysctl" 2>/dev/null || echo "note: cannot turn fs.protected_symlinks off; the kernel protects links too"
fi
trap '[ -z "$old" ] || [ "$(cat "$sysctl")" = "$old" ] || echo "$old" >"$sysctl"; rm -rf "$scratch"' EXIT

umask 022
pub="$scratch/pub"
mkdir "$pub" "$scratch/victim" "$scratch/ours" "$pub/mine"
chmod 1777 "$pub"
chmod 700 "$scratch/victim"
outputs="out.csv late.csv s.json t.csv r.html m.jsonl sw.csv"
for f in $outputs; do
	echo secret >"$scratch/victim/$f"
	chmod 600 "$scratch/victim/$f"
done
# Another user's link, another user's directory, and a link of ours.
ln -s "$scratch/victim" "$pub/d"
chown -h nobody:nogroup "$pub/d"
mkdir "$pub/nd"
chown nobody:nogroup "$pub/nd"
ln -s "$scratch/ours" "$pub/ours"

cat >"$scratch/trace.csv" <<TRACE
0,1000,1,1,0
0,2000,1,1,0
0,500,1,1,500
0,9000,1,1,600
TRACE
conf() { # conf DIR -- sink and late output in DIR
	cat <<CONF
[job]
speed = 20
[source s]
partitions = 1
replay = $scratch/trace.csv
pacing = arrival
[window w]
input = s
size = 1 s
late_output = $1/late.csv
[sink out]
input = w
path = $1/out.csv
CONF
}
# plain DIR: the same job writing to standard output.
plain() { conf "$1" | sed '/^late_output/d; s|^path = .*|path = -|'; }

# refused DIR WHAT OPTIONS...: an output below DIR is refused (74),
# naming DIR as WHAT ("follow symbolic link", "write below directory").
refused() {
	dir=$1 what=$2
	shift 2
	expect_status 74 "$WMRUN" --quiet "$@"
	expect_line "refusing to $what \"$dir\", which another user can replace" "$scratch/err"
}

for d in "$pub/d:follow symbolic link" "$pub/nd:write below directory"; do
	dir=${d%%:*} what=${d#*:}
	conf "$dir" >"$scratch/job.conf"
	plain "$dir" >"$scratch/plain.conf"
	refused "$dir" "$what" --sim "$scratch/job.conf"
	refused "$dir" "$what" "$scratch/job.conf"
	sed -i '/^late_output/d' "$scratch/job.conf"
	refused "$dir" "$what" --sim "$scratch/job.conf"
	refused "$dir" "$what" --sim --summary "$dir/s.json" "$scratch/plain.conf"
	refused "$dir" "$what" --sim --record-trace "$dir/t.csv" "$scratch/plain.conf"
	refused "$dir" "$what" --sim --report "$dir/r.html" "$scratch/plain.conf"
	refused "$dir" "$what" --metrics "$dir/m.jsonl" "$scratch/plain.conf"
	refused "$dir" "$what" --sim --sweep w.size=1s,2s --sweep-csv "$dir/sw.csv" \
		"$scratch/plain.conf"
done
for f in $outputs; do
	[ "$(cat "$scratch/victim/$f")" = secret ] ||
		fail "the planted directory link was followed to $f"
done
[ -z "$(ls -A "$pub/nd")" ] || fail "files written into another user's directory: $(ls -A "$pub/nd")"

# Our own directory and our own link in the shared directory: written.
for dir in "$pub/mine" "$pub/ours"; do
	conf "$dir" >"$scratch/job.conf"
	expect_status 0 "$WMRUN" --sim --quiet --summary "$dir/s.json" "$scratch/job.conf"
	expect_line '^1,1000,2000,' "$dir/out.csv"
	expect_line '^0,500,1,1$' "$dir/late.csv"
	expect_line '"records_read":4' "$dir/s.json"
done
[ -f "$scratch/ours/out.csv" ] || fail "our own link was not followed"
exit 0
