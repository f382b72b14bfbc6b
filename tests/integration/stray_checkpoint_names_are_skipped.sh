#!/bin/sh
# Something named like a checkpoint in the checkpoint directory that is
# not one (a stray file "chk-1", or a link another user planted there to a
# directory of theirs) is never followed and never written over: a job
# numbers its checkpoints after every chk-N there, whatever it is, and
# takes them all. It used to begin checkpoint 1 on the stray name at every
# trigger: a real run failed every checkpoint and exited 0 with
# "checkpoints 0 completed", --sim stopped with 70 "internal error".
. "$srcdir/tests/lib/lib.sh"

example="$EXAMPLES/restart_quiet_partition.conf"

# conf NAME: the example without its crash, at speed 20000 (0.7 s of real
# time; no checkpoint timeout, which would be 30 ms of real time on a
# loaded machine), checkpoints into $scratch/NAME.chk, results into
# $scratch/NAME.csv.
conf() {
	sed -e "s|^checkpoint_dir = .*|checkpoint_dir = $scratch/$1.chk|" \
		-e "s|^path = .*|path = $scratch/$1.csv|" \
		-e "s|^speed = .*|speed = 20000|" \
		-e 's|^checkpoint_interval = .*|&\ncheckpoint_timeout = 1000 h|' \
		-e '/^fail_at/d' "$example" >"$scratch/$1.conf"
}

# run NAME MODE: the job (MODE --sim or empty) over its directory holds
# a stray file "chk-1" and a link "chk-2" to another user's directory: it
# finishes with every checkpoint taken after them, both left as they
# were, the link's target untouched.
run() {
	conf "$1"
	mkdir -p "$scratch/$1.chk" "$scratch/$1.theirs"
	echo "not a checkpoint" >"$scratch/$1.chk/chk-1"
	echo "theirs" >"$scratch/$1.theirs/_metadata"
	ln -s "$scratch/$1.theirs" "$scratch/$1.chk/chk-2"
	expect_status 0 "$WMRUN" $2 --quiet --summary "$scratch/$1.json" "$scratch/$1.conf"
	expect_line '^  every record accounted  yes$' "$scratch/err"
	expect_line '^  checkpoints             [1-9][0-9]* completed, the last chk-([3-9]|[1-9][0-9]+) ' "$scratch/err"
	grep -q '"failed":[1-9]' "$scratch/$1.json" && fail "$1: a checkpoint failed"
	[ "$(cat "$scratch/$1.chk/chk-1")" = "not a checkpoint" ] || fail "$1: the stray file changed"
	[ -L "$scratch/$1.chk/chk-2" ] || fail "$1: the planted link went"
	[ "$(ls "$scratch/$1.theirs")" = _metadata ] &&
		[ "$(cat "$scratch/$1.theirs/_metadata")" = theirs ] ||
		fail "$1: the link was followed"
	! grep -q '^    given up' "$scratch/err" || fail "$1: a checkpoint was given up"
	[ "$(tail -n +2 "$scratch/$1.csv" | wc -l)" -gt 0 ] || fail "$1: no result"
}

run sim --sim
run real ""
exit 0
