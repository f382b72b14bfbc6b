#!/bin/sh
# On a terminal, wmrun redraws a screen in place while the job runs. In a
# real terminal (tmux), the screen's blame line names the silent
# partition, and why, while it is silent, and stops naming it once it
# sends again; the window results go to their sink, never to the screen.
. "$srcdir/tests/lib/lib.sh"

command -v tmux >/dev/null || { echo "tmux is not installed"; exit 77; }
sock="$scratch/tmux.sock"
tm() { tmux -S "$sock" "$@"; }
trap 'tm kill-server 2>/dev/null; rm -rf "$scratch"' EXIT

# Partition 3 silent from 1 h to 3 h, no idle timeout: about 2.4 s to
# 7.2 s of real time at speed 1500, of 9.6 s in all.
quiet_partition_job 1500 "$scratch/out.csv" >"$scratch/job.conf"

# stdout and stderr on the pane's terminal, as a user runs it; the
# results go to out.csv, so auto draws the screen.
tm new-session -d -x 160 -y 50 -s live \
	"'$WMRUN' '$scratch/job.conf'; echo \"EXIT=\$?\"; sleep 60"
n=0
until grep -q '^EXIT=' "$scratch/screen.$n" 2>/dev/null; do
	n=$((n + 1))
	[ $n -le 1500 ] || fail "the job did not end within about 5 minutes"
	sleep 0.2
	tm capture-pane -p -t live >"$scratch/screen.$n" ||
		fail "could not read the pane"
done
expect_line '^EXIT=0$' "$scratch/screen.$n"
expect_line '^wmrun: job "one-quiet-partition" finished after ' "$scratch/screen.$n"
has_results "$scratch/out.csv" || fail "no results in the sink"

# The processing time a screen shows in its head line, in minutes.
minutes() {
	head -n 1 "$1" | sed -nE \
		-e 's/.*processing time ([0-9]+) h ([0-9]+) min at .*/\1 \2/p' \
		-e 's/.*processing time ([0-9]+) min [0-9]+ s at .*/0 \1/p' \
		-e 's/.*processing time [0-9.]+ m?s at .*/0 0/p' |
		awk '{ print $1 * 60 + $2 }'
}
# On a loaded machine the subtask that reads it may itself wait for a CPU
# or not run at a moment: it is still the one named, as starved or behind
# then.
blamed='held for .* by partition events-3 of events/[01] \((silence: nothing arrives|starved: its process waits for a CPU|behind: records are due, its process does not run)\)'
during=0 after=0 silent_screens=0 said_silence=0
for i in $(seq 1 "$n"); do
	f="$scratch/screen.$i"
	grep -q '^wmrun: job "one-quiet-partition": ' "$f" || continue
	m=$(minutes "$f")
	[ -n "$m" ] || continue
	# A screen of the silence, once the stall threshold has passed:
	# every one of them names partition 3, and why.
	if [ "$m" -ge 70 ] && [ "$m" -lt 175 ]; then
		silent_screens=$((silent_screens + 1))
		grep -Eq "$blamed" "$f" || {
			cat "$f" >&2
			fail "a screen of the silence does not name partition events-3"
		}
		grep -q 'by partition events-3 .*(silence: nothing arrives)' "$f" &&
			said_silence=1
		during=1
	fi
	# Well after it returned: nobody blames its silence any more (on a
	# loaded machine a starved subtask may hold a watermark for a while,
	# with events-3 at its minimum: that is no silence).
	if [ "$m" -ge 195 ]; then
		! grep -q 'by partition events-3 .*(silence' "$f" || {
			cat "$f" >&2
			fail "a screen after the silence still names partition events-3"
		}
		after=1
	fi
	# Results never reach the screen (the CSV's rows hold commas only).
	! grep -Eq '^[0-9]+,[0-9]+,' "$f" || fail "a window result on the screen"
done
[ $during -eq 1 ] || fail "no screen was drawn during the silence"
[ $said_silence -eq 1 ] || fail "no screen of the silence called it silence"
[ $after -eq 1 ] || fail "no screen was drawn after the silence"
# The screen shows each subtask's inputs with their status.
grep -lE '^ +partition events-3 +(\+[0-9]+d )?[0-9:.]+ +ACTIVE' "$scratch"/screen.* >/dev/null ||
	fail "no screen lists partition events-3 under its subtask"
grep -lE '^ +from events/[01] +' "$scratch"/screen.* >/dev/null ||
	fail "no screen lists the window's input channels"
echo "ok ($silent_screens screens during the silence)"
