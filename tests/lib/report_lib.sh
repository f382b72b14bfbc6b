# report_lib.sh -- open a --report page in headless Chromium and check
# what it drew (sourced after lib.sh; report_page.py does the reading).
#
# A test calls report_need_browser first: it skips (77), saying why,
# where Chromium or python3 is absent, never passes.

report_need_browser() {
	browser=""
	for b in chromium chromium-browser; do
		if command -v "$b" >/dev/null 2>&1; then
			browser=$b
			break
		fi
	done
	if [ -z "$browser" ]; then
		echo "SKIP: no chromium on this machine (Debian package chromium)" >&2
		exit 77
	fi
	if ! command -v python3 >/dev/null 2>&1; then
		echo "SKIP: no python3 to read the screenshot and the DOM" >&2
		exit 77
	fi
}

# report_open PAGE -- PAGE is self-contained (nothing fetched, no
# script), and Chromium renders it: a 1200 x 2400 screenshot that is not
# blank into PAGE.png, the DOM it built into PAGE.dom. Chromium's own
# profile in the scratch directory; --no-sandbox as root in a container.
# A loaded machine may take a while: bounded, not timed.
report_open() {
	[ -s "$1" ] || fail "no report written at $1"
	if grep -Eq '<script|<link|src=|href=' "$1"; then
		fail "the report $1 refers to something outside itself"
	fi
	set -- "$1" timeout 300 "$browser" --headless --no-sandbox \
		--disable-gpu --user-data-dir="$scratch/profile" \
		--hide-scrollbars
	page=$1
	shift
	"$@" --window-size=1200,2400 --screenshot="$page.png" \
		"file://$page" >/dev/null 2>>"$scratch/browser.err" || {
		cat "$scratch/browser.err" >&2
		fail "chromium could not take a screenshot of $page"
	}
	"$@" --dump-dom "file://$page" >"$page.dom" \
		2>>"$scratch/browser.err" || {
		cat "$scratch/browser.err" >&2
		fail "chromium could not dump the DOM of $page"
	}
	python3 "$srcdir/tests/tools/report_page.py" png "$page.png" \
		1200 2400 || fail "the screenshot of $page is not the page"
}

# report_expect PAGE CHECK... -- the DOM of PAGE (report_open) holds what
# every CHECK says (report_page.py: plot=NAME, tables>=N, NAME>=N ...).
report_expect() {
	page=$1
	shift
	python3 "$srcdir/tests/tools/report_page.py" dom "$page.dom" \
		"$@" || fail "the DOM of $page lacks what it should show"
}

# report_expect_quiet_partitions PAGE [exact] -- the page of
# examples/quiet_partitions.conf (4 source subtasks, 16 partitions, 2
# window subtasks; partitions 13-15 silent from 1 h to 9 h, idle 30 s into
# it) drew every plot's series: each subtask's watermark and newest event
# time with more than one point, every partition's records, the quiet
# partitions' records on both sides of an idle span, the fire-delay bars,
# the summary tables. `exact` (--sim, where nothing but the job decides):
# no busy partition was ever idle, which a real run on a loaded machine
# may see for a moment (a source descheduled past its idle_timeout).
report_expect_quiet_partitions() {
	page=$1
	exact=${2:-}
	set -- plot="fire delay" "fire delay>1" "tables>=2"
	for s in events/0 events/1 events/2 events/3 counts/0 counts/1; do
		set -- "$@" plot="$s" "$s watermark>1" "$s newest event time>1"
	done
	p=0
	while [ "$p" -lt 16 ]; do
		set -- "$@" "events-$p records>=1"
		if [ "$p" -ge 13 ]; then
			set -- "$@" "events-$p idle>=1" "events-$p records>=2"
		elif [ "$exact" = exact ]; then
			set -- "$@" "events-$p idle=0"
		fi
		p=$((p + 1))
	done
	report_expect "$page" "$@"
}
