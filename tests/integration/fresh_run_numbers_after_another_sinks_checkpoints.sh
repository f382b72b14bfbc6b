#!/bin/sh
# A run without --resume starts afresh over whatever its checkpoint
# directory holds, numbering its checkpoints after those there (README,
# "Checkpoints and restarts"), checkpoints of the same job with another
# sink too: examples/restart_quiet_partition.conf to standard output, then
# to a file into the same directory. The second run used to be refused at
# once (its committer's blob makes one more per checkpoint, so the first
# run's read as another job's): --sim with 70 "internal error", a real
# run with 65 "a malformed record in a replayed trace".
. "$srcdir/tests/lib/lib.sh"

example="$EXAMPLES/restart_quiet_partition.conf"

# conf NAME DIR PATH: the example with its crash at 2 h, at speed 20000
# (0.7 s of real time; no checkpoint timeout, which would be 30 ms of
# real time on a loaded machine), checkpoints into DIR, results into
# PATH.
conf() {
	sed -e "s|^checkpoint_dir = .*|checkpoint_dir = $2|" \
		-e "s|^path = .*|path = $3|" \
		-e "s|^speed = .*|speed = 20000|" \
		-e 's|^checkpoint_interval = .*|&\ncheckpoint_timeout = 1000 h|' "$example" >"$scratch/$1.conf"
}

# ids DIR: the ids of DIR's checkpoints, lowest first.
ids() {
	ls "$1" | sed -n 's/^chk-//p' | sort -n
}

# The file's results in a directory of its own, for comparison.
conf alone "$scratch/alone.chk" "$scratch/alone.csv"
expect_status 0 "$WMRUN" --sim --quiet "$scratch/alone.conf"

for mode in --sim real; do
	dir="$scratch/$mode.chk"
	conf "$mode-stdout" "$dir" -
	conf "$mode-file" "$dir" "$scratch/$mode.csv"
	flag=$([ "$mode" = --sim ] && echo --sim)
	expect_status 0 "$WMRUN" $flag --quiet "$scratch/$mode-stdout.conf"
	before=$(ids "$dir" | tail -1)
	[ -n "$before" ] || fail "$mode: the first run left no checkpoint"
	expect_status 0 "$WMRUN" $flag --quiet "$scratch/$mode-file.conf"
	expect_line '^  every record accounted  yes$' "$scratch/err"
	expect_line '^  checkpoints             [1-9][0-9]* completed' "$scratch/err"
	grep -q 'malformed\|internal error\|another job' "$scratch/err" &&
		fail "$mode: $(cat "$scratch/err")"
	# Numbered after the first run's, which stay (another job's
	# checkpoints are never deleted by this one's retention).
	[ "$(ids "$dir" | tail -1)" -gt $((before + 1)) ] ||
		fail "$mode: not numbered after checkpoint $before: $(ids "$dir")"
	[ -d "$dir/chk-$before" ] || fail "$mode: the first run's checkpoint $before went"
	# The restart restored this run's own checkpoint: every result
	# once, as in a directory of its own.
	[ "$(tail -n +2 "$scratch/$mode.csv" | wc -l)" -eq "$(tail -n +2 "$scratch/alone.csv" | wc -l)" ] ||
		fail "$mode: $(wc -l <"$scratch/$mode.csv") lines, alone $(wc -l <"$scratch/alone.csv")"
done
cmp -s "$scratch/--sim.csv" "$scratch/alone.csv" ||
	fail "--sim: the file differs from the run's in a directory of its own"
exit 0
