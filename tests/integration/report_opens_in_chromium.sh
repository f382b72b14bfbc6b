#!/bin/sh
# report_opens_in_chromium.sh -- the --report page of the quiet-partitions
# incident opens in a real browser: headless Chromium renders it to a
# screenshot of the size asked, not blank, and its DOM, as Chromium built
# it, holds every plot with every series drawn: each subtask's watermark
# and newest event time with more than one point, every partition's
# records, the quiet partitions' idle spans, the fire-delay bars, and the
# summary table. Skipped, saying why, where Chromium or python3 is absent.
. "${srcdir:-.}/tests/integration/lib.sh"

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

page="$scratch/report.html"
expect_status 0 "$WMRUN" --sim --quiet --report "$page" \
	"$EXAMPLES/quiet_partitions.conf"
[ -s "$page" ] || fail "no report written"
# Self-contained: nothing fetched, no script.
if grep -Eq '<script|<link|src=|href=' "$page"; then
	fail "the report refers to something outside itself"
fi

# Chromium's own profile in the scratch directory; --no-sandbox as root
# in a container. A loaded machine may take a while: bounded, not timed.
run_browser() {
	timeout 300 "$browser" --headless --no-sandbox --disable-gpu \
		--user-data-dir="$scratch/profile" --hide-scrollbars \
		"$@" "file://$page" 2>>"$scratch/browser.err"
}
run_browser --window-size=1200,2400 --screenshot="$scratch/shot.png" \
	>/dev/null || {
	cat "$scratch/browser.err" >&2
	fail "chromium could not take a screenshot"
}
run_browser --dump-dom >"$scratch/dom.html" || {
	cat "$scratch/browser.err" >&2
	fail "chromium could not dump the DOM"
}

# The screenshot: a PNG 1200 x 2400 with more than one colour in it.
python3 - "$scratch/shot.png" <<'EOF' || fail "the screenshot is not the page"
import struct, sys, zlib

data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, ihdr = 8, b"", None
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        ihdr = struct.unpack(">IIBBBBB", body)
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
width, height, depth, colour = ihdr[:4]
assert (width, height) == (1200, 2400), "size %dx%d" % (width, height)
assert depth == 8 and colour in (2, 6), "colour type %d/%d" % (depth, colour)
bpp = 3 if colour == 2 else 4
raw = zlib.decompress(idat)
stride = width * bpp
prev = bytearray(stride)
colours = set()
for y in range(height):
    f = raw[y * (stride + 1)]
    line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        if f == 1:
            line[i] = (line[i] + a) & 255
        elif f == 2:
            line[i] = (line[i] + b) & 255
        elif f == 3:
            line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            pr = a if pa <= pb and pa <= pc else b if pb <= pc else c
            line[i] = (line[i] + pr) & 255
    if y % 16 == 0:
        for x in range(0, stride, bpp * 4):
            colours.add(bytes(line[x:x + 3]))
    prev = line
assert len(colours) > 5, "%d colours: a blank page" % len(colours)
EOF

# The DOM: every plot and what it drew.
python3 - "$scratch/dom.html" <<'EOF' || fail "the report's DOM lacks a series"
import sys
from html.parser import HTMLParser

class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.plots, self.series, self.plot, self.tables = [], {}, None, 0
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "svg" and "plot" in a.get("class", "").split():
            self.plot = a["data-plot"]
            self.plots.append(self.plot)
        if "data-series" in a:
            self.series[a["data-series"]] = (self.plot,
                                             int(a["data-points"]))
        if tag == "table":
            self.tables += 1

page = Page()
page.feed(open(sys.argv[1], encoding="utf-8").read())

def points(name):
    if name not in page.series:
        sys.exit("no series \"%s\" in the DOM" % name)
    return page.series[name][1]

subtasks = ["events/%d" % i for i in range(4)] + ["counts/0", "counts/1"]
for s in subtasks:
    if s not in page.plots:
        sys.exit("no plot of subtask %s" % s)
    for what in ("watermark", "newest event time"):
        if points("%s %s" % (s, what)) <= 1:
            sys.exit("%s %s drew %d points" % (s, what,
                                               points("%s %s" % (s, what))))
for p in range(16):
    if points("events-%d records" % p) < 1:
        sys.exit("partition events-%d drew no records" % p)
for p in (13, 14, 15):
    # Silent from 1 h to 9 h, idle after 30 s of it: records, then a
    # silence, then idle, then records again.
    if points("events-%d idle" % p) < 1 or points("events-%d records" % p) < 2:
        sys.exit("quiet partition events-%d shows no idleness" % p)
for p in range(13):
    if points("events-%d idle" % p) != 0:
        sys.exit("busy partition events-%d shown idle" % p)
if "fire delay" not in page.plots or points("fire delay") <= 1:
    sys.exit("the fire delay distribution drew no bars")
if page.tables < 2:
    sys.exit("no summary tables")
EOF
exit 0
