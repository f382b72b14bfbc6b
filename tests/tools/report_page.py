# report_page.py -- what a report page showed in a browser, for the
# report tests (report_lib.sh runs it):
#
#   report_page.py png SHOT.png WIDTH HEIGHT
#       the screenshot is a PNG of that size with more than a few colours
#       (a page that drew, not a blank one)
#   report_page.py dom PAGE.html CHECK...
#       the DOM Chromium built holds what every CHECK says:
#         plot=NAME     an <svg class="plot" data-plot="NAME">
#         tables>=N     at least N tables
#         answer~TEXT   the <section class="answer"> holds TEXT
#         NAME OP N     the series NAME (data-series) exists and drew
#                       data-points OP N, OP one of >= > = <
#
# Exit 0 when all hold, else a message naming the first that does not.
import re
import struct
import sys
import zlib
from html.parser import HTMLParser


def png(path, want_w, want_h):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit("%s: not a PNG" % path)
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
    if (width, height) != (want_w, want_h):
        sys.exit("screenshot %dx%d, asked %dx%d" % (width, height, want_w,
                                                    want_h))
    if depth != 8 or colour not in (2, 6):
        sys.exit("colour type %d/%d" % (depth, colour))
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
    if len(colours) <= 5:
        sys.exit("%d colours: a blank page" % len(colours))


class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.plots, self.series, self.plot, self.tables = set(), {}, None, 0
        self.answer, self.in_answer = "", 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "svg" and "plot" in (a.get("class") or "").split():
            self.plot = a.get("data-plot")
            self.plots.add(self.plot)
        if "data-series" in a:
            self.series[a["data-series"]] = int(a.get("data-points", -1))
        if tag == "table":
            self.tables += 1
        if tag == "section" and "answer" in (a.get("class") or "").split():
            self.in_answer = 1
        elif self.in_answer and tag == "section":
            self.in_answer += 1

    def handle_endtag(self, tag):
        if self.in_answer and tag == "section":
            self.in_answer -= 1

    def handle_data(self, data):
        if self.in_answer:
            self.answer += data


def dom(path, checks):
    page = Page()
    page.feed(open(path, encoding="utf-8").read())
    for check in checks:
        if check.startswith("answer~"):
            if check[7:] not in page.answer:
                sys.exit("the answer lacks \"%s\": %s" % (check[7:], page.answer))
            continue
        if check.startswith("plot="):
            if check[5:] not in page.plots:
                sys.exit("no plot \"%s\" in the DOM" % check[5:])
            continue
        m = re.fullmatch(r"(.+?)\s*(>=|>|=|<)\s*(\d+)", check)
        if m is None:
            sys.exit("report_page.py: cannot read the check \"%s\"" % check)
        name, op, n = m.group(1), m.group(2), int(m.group(3))
        if name == "tables":
            got = page.tables
        elif name in page.series:
            got = page.series[name]
        else:
            sys.exit("no series \"%s\" in the DOM" % name)
        ok = {">=": got >= n, ">": got > n, "=": got == n, "<": got < n}[op]
        if not ok:
            sys.exit("\"%s\" drew %d, expected %s %d" % (name, got, op, n))


if len(sys.argv) >= 5 and sys.argv[1] == "png":
    png(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
elif len(sys.argv) >= 3 and sys.argv[1] == "dom":
    dom(sys.argv[2], sys.argv[3:])
else:
    sys.exit("usage: report_page.py png SHOT W H | dom PAGE CHECK...")
