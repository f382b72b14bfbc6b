#!/bin/sh
# In a directory that other users can write (world-writable and sticky,
# as /tmp), wmrun never writes through a symbolic link planted at an
# output's path: the sink, the late side output and the --summary file
# are made afresh (a new file renamed over the link), and the file the
# link pointed at is left untouched, even where the kernel's
# fs.protected_symlinks would not protect it (the links here are the
# job's own user's). A link to a FIFO or device there is refused. In a
# directory only we can write, our own links are followed as ever. New
# files get mode 0666 less the umask. A root job used to overwrite a
# root-owned 0600 file through another user's link.
. "$srcdir/tests/lib/lib.sh"

umask 022
common="$scratch/common"
mkdir "$common"
chmod 1777 "$common"
# One file a link: the job refuses two outputs that are the same file.
for f in out.csv late.csv s.json; do
	echo "secret" >"$scratch/victim.$f"
	chmod 600 "$scratch/victim.$f"
done

# 0,500 arrives after a watermark tick has passed 2000: late.
cat >"$scratch/trace.csv" <<TRACE
0,1000,1,1,0
0,2000,1,1,0
0,500,1,1,500
0,9000,1,1,600
TRACE
conf() { # conf DIR -- outputs in DIR
	cat <<CONF
[source s]
parallelism = 1
partitions = 1
replay = $scratch/trace.csv
pacing = arrival
[window w]
input = s
parallelism = 1
size = 1 s
late_output = $1/late.csv
[sink out]
input = w
parallelism = 1
path = $1/out.csv
CONF
}
conf "$common" >"$scratch/job.conf"

for mode in --sim real; do
	opt=$mode
	[ "$mode" = real ] && opt=
	for f in out.csv late.csv s.json; do
		rm -f "$common/$f"
		ln -s "$scratch/victim.$f" "$common/$f"
	done
	# shellcheck disable=SC2086
	expect_status 0 "$WMRUN" $opt --summary "$common/s.json" "$scratch/job.conf"
	for f in out.csv late.csv s.json; do
		[ "$(cat "$scratch/victim.$f")" = secret ] ||
			fail "$mode: the planted link $f was followed"
	done
	for f in out.csv late.csv s.json; do
		[ -f "$common/$f" ] && [ ! -L "$common/$f" ] ||
			fail "$mode: $f is not a file of its own"
		[ "$(stat -c %a "$common/$f")" = 644 ] ||
			fail "$mode: $f has mode $(stat -c %a "$common/$f"), expected 644"
	done
	expect_line '^1,1000,2000,' "$common/out.csv"
	expect_line '^0,500,1,1$' "$common/late.csv"
	expect_line '"records_read":4' "$common/s.json"
done
[ -z "$(ls -A "$common" | grep -v '^\(out\.csv\|late\.csv\|s\.json\)$')" ] ||
	fail "files left behind in $common: $(ls -A "$common")"

# A link to a FIFO in the shared directory is refused, not opened.
mkfifo "$scratch/fifo"
rm -f "$common/out.csv"
ln -s "$scratch/fifo" "$common/out.csv"
expect_status 74 "$WMRUN" --sim "$scratch/job.conf"
expect_line "could not open output file \"$common/out.csv\": refusing to follow a symbolic link in a directory that other users can write" "$scratch/err"

# Our own directory: our own links lead where they point.
private="$scratch/private"
mkdir "$private"
chmod 700 "$private"
conf "$private" >"$scratch/job.conf"
: >"$scratch/kept.csv"
ln -s "$scratch/kept.csv" "$private/out.csv"
expect_status 0 "$WMRUN" --sim "$scratch/job.conf"
[ -L "$private/out.csv" ] || fail "our own link was replaced"
expect_line '^1,1000,2000,' "$scratch/kept.csv"
echo ok
