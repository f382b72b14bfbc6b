#!/bin/sh
# The live screen in real terminals (tmux) of 80x24 and 160x50: every
# frame fits (no line longer than the terminal, none wrapped), the head
# line is the first row of every frame, and while partitions are silent
# the frame names the one that holds the window, at 80x24 too, where
# the whole screen would take twice the rows. Held lines are coloured;
# NO_COLOR draws the same screen with no colour, and TERM=dumb, which
# cannot move a cursor, gets plain lines without a single escape.
. "$srcdir/tests/lib/lib.sh"

command -v tmux >/dev/null || { echo "tmux is not installed"; exit 77; }
sock="$scratch/tmux.sock"
tm() { tmux -S "$sock" "$@"; }
trap 'tm kill-server 2>/dev/null; rm -rf "$scratch"' EXIT

# 16 partitions on 4 source subtasks, 13 to 15 silent from 1 h to 3 h
# (about 2.4 s to 7.2 s of real time, of 9.6 s), two window subtasks:
# 45 lines of screen.
cat >"$scratch/job.conf" <<CONF
[job]
name = sixteen-partitions
event_time = 4 h
speed = 1500
[source events]
parallelism = 4
partitions = 16
rate = 1/s
silence = 13-15 from 1 h to 3 h
[window counts]
input = events
parallelism = 2
size = 10 min
[sink out]
input = counts
path = $scratch/out.csv
CONF

# start NAME COLS ROWS [ENV...]: the job in a COLSxROWS pane of its own,
# its results into $scratch/NAME.csv, its raw output into
# $scratch/NAME.raw.
start() {
	name=$1 cols=$2 rows=$3
	shift 3
	sed "s|^path = .*|path = $scratch/$name.csv|" "$scratch/job.conf" \
		>"$scratch/$name.conf"
	tm new-session -d -x "$cols" -y "$rows" -s "$name" \
		"env $* '$WMRUN' '$scratch/$name.conf'; echo \"EXIT=\$?\"; sleep 60"
	tm pipe-pane -o -t "$name" "cat >>'$scratch/$name.raw'"
}

# capture NAME...: the panes' screens, captured every 0.2 s (-e: their
# attributes as escapes; -J: a line that wrapped joined again, as long as
# it was written) into $scratch/NAME.N, until each job ended (exit 0);
# how many in $scratch/NAME.frames. Two jobs at a time: the test's time
# is the longest's, and the machine has room for both.
capture() {
	n=0 left="$*"
	while [ -n "$left" ]; do
		n=$((n + 1))
		[ $n -le 1500 ] || fail "$left: the job did not end within about 5 minutes"
		sleep 0.2
		still=""
		for name in $left; do
			tm capture-pane -p -e -J -t "$name" >"$scratch/$name.$n" ||
				fail "$name: could not read the pane"
			if grep -q '^EXIT=' "$scratch/$name.$n"; then
				expect_line '^EXIT=0$' "$scratch/$name.$n"
				echo "$n" >"$scratch/$name.frames"
				tm kill-session -t "$name"
			else
				still="$still $name"
			fi
		done
		left=$still
	done
}

# The capture without its attributes.
plain() { sed 's/\x1b\[[0-9;]*m//g' "$1"; }

# check_frames NAME COLS: every frame drawn while the job ran fits, has
# the head line first, and those of the silence name what holds it.
check_frames() {
	name=$1 cols=$2 silent=0 frames=$(cat "$scratch/$1.frames")
	for i in $(seq 1 "$frames"); do
		f="$scratch/$name.$i"
		plain "$f" >"$f.txt"
		head -n 1 "$f.txt" | grep -q '^wmrun: job "sixteen-partitions": ' || continue
		awk -v cols="$cols" 'length($0) > cols { exit 1 }' "$f.txt" ||
			fail "$name: a line of frame $i is longer than $cols columns"
		if grep -q 'watermark stalled\|^wmrun: job .* finished' "$f.txt"; then
			continue # the summary: printed after the screen
		fi
		if grep -Eq ' by partition events-1[345] of events/[0-3] \(silence' "$f.txt"; then
			silent=$((silent + 1))
			grep -Eq '^    partition events-1[345] .*<- minimum' "$f.txt" ||
				fail "$name: frame $i names the holder but not its partition row"
		fi
	done
	[ $silent -ge 3 ] || fail "$name: only $silent frames named the silent partition"
	echo "$name: $frames captures, $silent of them name the silent partition"
}

start narrow 80 24
start wide 160 50
capture narrow wide
check_frames narrow 80
# Too short for the whole screen: some frame said what it left out or
# counted the subtasks it did not show.
grep -Elq '^\([0-9]+ more lines?: a taller terminal shows them\)|more subtasks?, none held' \
	"$scratch"/narrow.*.txt || fail "narrow: no frame says what it left out"
# Cut lines end in the mark.
grep -lq '>$' "$scratch"/narrow.*.txt || fail "narrow: no line was cut with a mark"
# Colour: the blame line in yellow (SGR 33).
grep -lq "$(printf '\033')\[33m    held for " "$scratch"/narrow.* ||
	fail "narrow: no blame line in colour"
check_frames wide 160

start nocolour 80 24 NO_COLOR=1
start dumb 80 24 TERM=dumb
capture nocolour dumb
check_frames nocolour 80
! grep -l "$(printf '\033')\[[0-9;]*3[0-7]m" "$scratch"/nocolour.[0-9]* ||
	fail "NO_COLOR: a frame in colour"

[ -s "$scratch/dumb.raw" ] || fail "TERM=dumb: nothing written"
! grep -q "$(printf '\033')" "$scratch/dumb.raw" ||
	fail "TERM=dumb: an escape sequence was written"
grep -Eq '^wmrun: [0-9.]+ s \(processing time .*\): counts/[01] watermark .* held for .* by partition events-1[345] of events/[0-3]' \
	"$scratch/dumb.raw" || fail "TERM=dumb: no line names the silent partition"

# Results to standard output, the same terminal: no screen to scroll
# them through, and one line says how to see it.
sed -e "s|^path = .*|path = -|" -e 's|^event_time = .*|event_time = 20 min|' \
	"$scratch/job.conf" >"$scratch/stdout.conf"
tm new-session -d -x 160 -y 50 -s stdout \
	"'$WMRUN' '$scratch/stdout.conf'; echo \"EXIT=\$?\"; sleep 60"
n=0
until grep -q '^EXIT=' "$scratch/stdout.txt" 2>/dev/null; do
	n=$((n + 1))
	[ $n -le 600 ] || fail "stdout: the job did not end within about 2 minutes"
	sleep 0.2
	tm capture-pane -p -J -S - -t stdout >"$scratch/stdout.txt"
done
expect_line '^EXIT=0$' "$scratch/stdout.txt"
expect_line '^wmrun: the live screen is off: results go to standard output, this terminal ' "$scratch/stdout.txt"
! grep -q '^stage, subtask ' "$scratch/stdout.txt" || fail "stdout: a screen drawn over the results"
exit 0
