# random_kills_lib.sh -- a replayed job run for real with checkpoints, one
# worker SIGKILLed at a seeded random moment, and what must hold after it
# (sourced after lib.sh by restarts_survive_random_kills*.sh, not run).

# The trace: six partitions read by two source subtasks, one record per
# partition and second of event time for 10 min, keys 0-4, values 1-9.
# Partition 1 is silent from 2 min to 4 min 20 s and partition 4 from
# 5 min to 8 min: long past idle_timeout, so each goes idle and active
# again. Timestamps wander below the second by at most 899 ms, inside the
# 2 s out-of-orderness bound, and rise from one second to the next in
# every partition. With pacing = event a record is due at its timestamp
# and a subtask releases its partitions' records by due time, so a
# partition coming back from a silence (or from a restore, when every
# watermark starts again at MIN) brings timestamps above the watermark
# its subtask's always-active partitions made: partition 1 is subtask 1's
# and 4 is subtask 0's (Flink's split assignment), each beside two that
# never go quiet, so no subtask is ever idle as a whole and no record is
# ever late, before a restart or after it. LATE (a number) adds that many
# records far behind their partition, late on any schedule (see
# restarts_survive_random_kills_with_late_records.sh).
random_kills_trace() {
	awk -v late="${1:-0}" 'BEGIN {
		print "partition,timestamp,key,value"
		for (s = 0; s < 600; s++)
			for (p = 0; p < 6; p++) {
				if (p == 1 && s >= 120 && s < 260) continue
				if (p == 4 && s >= 300 && s < 480) continue
				printf "%d,%d,%d,%d\n", p,
					s * 1000 + (p * 137 + s * 7919) % 900,
					(s * 7 + p * 3) % 5, 1 + (s + p) % 9
				# Every 20 s from 3 min, a record of partition
				# 0 or 2 three minutes old: its window ended
				# long before, whatever the timing.
				if (late > 0 && s >= 180 && s % 20 == 0 &&
				    (p == 0 || p == 2) && n < late) {
					printf "%d,%d,%d,%d\n", p,
						(s - 180) * 1000 + 500, p, 100
					n++
				}
			}
	}'
}

# random_kills_conf TRACE CHECKPOINTS RESULTS [EXTRA_JOB_LINE] -- the job
# on TRACE: 10 min of event time at speed 500 (1.2 s of real time), a
# checkpoint every 20 s of processing time (40 ms real) into CHECKPOINTS,
# keyBy and 10 s tumbling windows, results to RESULTS (late records, if
# any, to RESULTS.late).
random_kills_conf() {
	cat <<CONF
[job]
name = random-kills
speed = 500
checkpoint_interval = 20 s
checkpoint_dir = $2
checkpoints_retained = 2
${4:-}
[source t]
parallelism = 2
partitions = 6
replay = $1
pacing = event
out_of_orderness = 2 s
idle_timeout = 20 s
[keyby k]
input = t
parallelism = 2
[window w]
input = k
parallelism = 2
size = 10 s
aggregates = count, sum
late_output = $3.late
[sink out]
input = w
parallelism = 2
path = $3
CONF
}

# results CSV -- the columns of the results that no timing changes, one
# line each, sorted: key, window_start, window_end, count and sum are
# fixed by the records in the window, since no record is late (or, with
# late records, each is late on any schedule); late_firing stays false
# with allowed_lateness 0. fire_time and watermark (columns 6 and 7) are
# processing time and the watermark when the window fired: they depend on
# the scheduling, and after a restore on when the crash came.
results() {
	tail -n +2 "$1" | cut -d, -f1-5,8 | sort
}

# Once the file sinks are exactly-once, set this to true: the committed
# output must then equal the fault-free run's line for line (as a
# multiset), not only as a set of lines, and hold no duplicate.
exactly_once=true

# beyond_limit SEED -- whether the run of SEED, whose results or late
# records differ from CLEAN's, is one that the job's guarantee does not
# cover, and differs only as it may there (saying how): never, unless a
# test that knows such a limit defines it after sourcing this file.
beyond_limit() {
	false
}

# up_or_ended PID -- the job PID has its six workers, or has ended (gone,
# or a zombie until this shell waits for it: a shell may reap it at once).
up_or_ended() {
	workers_up "$1" 6 || ! kill -0 "$1" 2>/dev/null ||
		[ "$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1)" = Z ]
}

# kill_run SEED CONF CLEAN -- run CONF (results in $scratch/run.csv, the
# checkpoints in $scratch/run.chk), SIGKILL one worker chosen by SEED
# after a delay chosen by SEED (0 to 1.5 s after the workers are up: the
# run takes 1.2 s of real time from its start line, so most kills land
# while it runs, a few near its end or after it), then check the run
# against CLEAN, the results of the same job run without a fault (and
# CLEAN.late, if there is one, its late records, sorted). Counts
# the kills that hit in $hits and the duplicates in $dups_total.
kill_run() {
	seed=$1 conf=$2 clean=$3
	rm -rf "$scratch/run.csv" "$scratch/run.csv.late" "$scratch/run.chk"
	set -- $(awk -v s="$seed" 'BEGIN { srand(s); printf "%.2f %d\n",
		rand() * 1.5, int(rand() * 1000) }')
	delay=$1 pick=$2
	rm -f "$scratch/run.json"
	"$WMRUN" --summary "$scratch/run.json" "$conf" >"$scratch/out" 2>"$scratch/err" &
	sup=$!
	start_watchdog "$sup" 60
	# Six workers (the observer, if any, is no worker), or the job over:
	# on a starved machine this shell may not run again before the job's
	# 1.2 s have passed, and its workers are never all seen at once (the
	# kill then finds nobody, and the run counts as missed).
	await "seed $seed: the workers of pid $sup" up_or_ended "$sup"
	sleep "$delay"
	victim=$(pgrep -l -P "$sup" | grep -v ' observer$' | sort -k 2 |
		awk -v pick="$pick" '{ w[NR] = $0 }
			END { if (NR) print w[pick % NR + 1] }')
	pid=${victim%% *} name=${victim#* } killed=false
	# A worker already gone, or a zombie (it ended and waits to be
	# reaped), is not killed: the job has finished with it.
	if [ -n "$victim" ]; then
		state=$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null | cut -c1)
		if [ -n "$state" ] && [ "$state" != Z ] &&
			kill -9 "$pid" 2>/dev/null; then
			killed=true
		fi
	fi
	wait "$sup"
	got=$?
	kill "$watchdog" 2>/dev/null
	[ "$got" -eq 0 ] || {
		cat "$scratch/err" >&2
		fail "seed $seed (SIGKILL to $victim after $delay s): exit $got"
	}
	expect_line '^  every record accounted  yes$' "$scratch/err"
	notices=$(grep -c '^wmrun: notice: worker .*restarting from' "$scratch/err")
	listed=$(grep -c '^    [0-9][0-9]*  at .*: worker ' "$scratch/err")
	restarts=$(sed -n 's/^  restarts  *\([0-9][0-9]*\)$/\1/p' "$scratch/err")
	results "$scratch/run.csv" >"$scratch/run.results"
	dups=$(uniq -d "$scratch/run.results" | wc -l)
	beyond=false
	if ! cmp -s "$scratch/run.results" "$clean" ||
		{ [ -e "$clean.late" ] &&
			! tail -n +2 "$scratch/run.csv.late" | sort | cmp -s - "$clean.late"; }; then
		beyond_limit "$seed" && beyond=true
	fi
	missed=false
	if [ "$notices" -eq 0 ] && [ -z "$restarts" ] && [ "$listed" -eq 0 ] &&
		{ $beyond || cmp -s "$scratch/run.results" "$clean"; }; then
		# No restart and the clean results, each once (or what
		# beyond_limit takes): the kill came after the worker's last
		# instruction (it was ending: a SIGKILL between our look at it
		# and its exit), or never.
		missed=true
	elif ! $killed; then
		cat "$scratch/err" >&2
		fail "seed $seed: a restart, or other results, without a kill"
	else
		# Exactly the one restart, caused by this kill.
		[ "$notices" -eq 1 ] && [ "$restarts" = 1 ] && [ "$listed" -eq 1 ] || {
			cat "$scratch/err" >&2
			fail "seed $seed: not one restart after killing $victim"
		}
		expect_line "^    1  at .*: worker \"$name\" \\(pid $pid\\) was terminated by signal 9: Killed\$" "$scratch/err"
		expect_line '^       after [^(]* \(restart_strategy = [a-z-]+, attempt [0-9]+\), (restored from chk-[0-9]+|from the start \(no checkpoint yet\)), event time held ' "$scratch/err"
		hits=$((hits + 1))
	fi
	if $beyond; then
		: # what differs, beyond_limit has checked and said
	elif $exactly_once; then
		cmp -s "$scratch/run.results" "$clean" || {
			cat "$scratch/err" >&2
			diff "$clean" "$scratch/run.results" >&2
			fail "seed $seed: the results differ from the fault-free run's"
		}
	else
		sort -u "$scratch/run.results" | cmp -s - "$clean" || {
			sort -u "$scratch/run.results" | diff "$clean" - >&2
			fail "seed $seed: the results differ from the fault-free run's"
		}
	fi
	# The late side output, where the job has late records: the same
	# records (all four columns come from the trace), as a set while the
	# outputs are at-least-once.
	if [ -e "$clean.late" ] && ! $beyond; then
		tail -n +2 "$scratch/run.csv.late" | sort >"$scratch/run.late"
		if $exactly_once; then
			cmp -s "$scratch/run.late" "$clean.late"
		else
			sort -u "$scratch/run.late" | cmp -s - "$clean.late"
		fi || {
			sort -u "$scratch/run.late" | diff "$clean.late" - >&2
			fail "seed $seed: the late records differ from the fault-free run's"
		}
	fi
	dups_total=$((dups_total + dups))
	echo "seed $seed: SIGKILL to ${victim:-nobody} after $delay s:" \
		"$($missed && echo missed || echo "restart 1")," \
		"$dups results written twice"
}

# The seeds a run takes: all 20 in the plain build; the sanitizer build
# and `make distcheck`, which run every test again in CI, take the first 5
# (the plain build runs them all).
if [ "${WM_SANITIZERS:-no}" = yes ] || [ "${WM_REAL_FLINK_TESTS:-yes}" = no ]; then
	seeds=5
else
	seeds=20
fi
