#!/bin/sh
# The Grafana dashboard in grafana/wmrun.json shows data for a real job:
# a real Prometheus server scrapes a running job that checkpoints and has
# a silent partition, and every PromQL expression of every panel, with
# the template variables set as Grafana would set them for that job,
# returns a non-empty result through the server's HTTP API; the
# variables' own queries offer the job's name and tasks. A dashboard that
# names a series wmrun does not serve (a typo, a renamed metric) would
# import fine and show "No data" for good: this is where that is caught.
# The dashboard's shape is checked first (what Grafana needs to import
# it: the datasource input, and for each panel an id of its own, a title,
# a place on the grid, the datasource and targets with refIds).
. "$srcdir/tests/lib/lib.sh"

skip_without prometheus curl python3
dashboard="$srcdir/grafana/wmrun.json"

# The shape, without a server: a broken file fails here in a moment.
python3 - "$dashboard" <<'PY' || fail "the dashboard's shape is wrong"
import json, sys

DS = "${DS_PROMETHEUS}"
bad = []
d = json.load(open(sys.argv[1]))
if not any(i.get("name") == "DS_PROMETHEUS" and i.get("type") == "datasource"
           and i.get("pluginId") == "prometheus" for i in d.get("__inputs", [])):
    bad.append("no Prometheus datasource input DS_PROMETHEUS in __inputs")
if not isinstance(d.get("schemaVersion"), int) or d["schemaVersion"] < 36:
    bad.append("schemaVersion %r: Grafana 10 writes 36 or later"
               % d.get("schemaVersion"))
for key in ("title", "uid"):
    if not d.get(key):
        bad.append("no dashboard " + key)


def uses_input(ds):
    # Grafana 10 writes {"type": "prometheus", "uid": "${DS_PROMETHEUS}"};
    # the bare string is the older form, which it still reads.
    return ds == DS or (isinstance(ds, dict) and ds.get("uid") == DS
                        and ds.get("type", "prometheus") == "prometheus")


# Panels, with those inside collapsed rows (a row keeps them in its own
# list while it is collapsed).
panels = []
for p in d.get("panels", []):
    panels.append(p)
    panels.extend(p.get("panels", []))
if not panels:
    bad.append("no panels")
ids = set()
cells = {}
for p in panels:
    name = "panel %r" % (p.get("title") or p.get("id"))
    if not isinstance(p.get("id"), int) or p["id"] in ids:
        bad.append("%s: id %r is missing or not unique" % (name, p.get("id")))
    ids.add(p.get("id"))
    if not p.get("title"):
        bad.append("%s: no title" % name)
    g = p.get("gridPos", {})
    if not all(isinstance(g.get(k), int) for k in "xywh") or g["w"] < 1 \
            or g["h"] < 1 or g["x"] < 0 or g["y"] < 0 or g["x"] + g["w"] > 24:
        bad.append("%s: gridPos %r is not a place on the 24-column grid"
                   % (name, g))
    else:
        # Two panels on one cell of the grid: Grafana would move one away.
        mine = {(x, y) for x in range(g["x"], g["x"] + g["w"])
                for y in range(g["y"], g["y"] + g["h"])}
        for other in sorted({cells[c] for c in mine if c in cells}):
            bad.append("%s overlaps %s" % (name, other))
        cells.update((c, name) for c in mine)
    if p.get("type") == "row":
        continue
    if not uses_input(p.get("datasource")):
        bad.append("%s: datasource %r, not %s" % (name, p.get("datasource"), DS))
    targets = p.get("targets") or []
    if not targets:
        bad.append("%s: no targets" % name)
    refs = [t.get("refId") for t in targets]
    if not all(refs) or len(set(refs)) != len(refs):
        bad.append("%s: refIds %r are missing or not unique" % (name, refs))
    for t in targets:
        if not t.get("expr"):
            bad.append("%s: target %r has no expr" % (name, t.get("refId")))
        if "datasource" in t and not uses_input(t["datasource"]):
            bad.append("%s: target %r: datasource %r"
                       % (name, t.get("refId"), t["datasource"]))
names = []
for v in d.get("templating", {}).get("list", []):
    names.append(v.get("name"))
    if v.get("type") == "query" and not uses_input(v.get("datasource")):
        bad.append("variable %r: datasource %r, not %s"
                   % (v.get("name"), v.get("datasource"), DS))
if "job_name" not in names:
    bad.append("no template variable job_name")
for b in bad:
    print("FAIL: " + b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY

# A failed test stops the job too (it would run on for two minutes).
job=""
trap '[ -z "$job" ] || kill -INT "$job"; stop_prometheus; rm -rf "$scratch"' EXIT

# Partition 3 silent from 2 min of processing time to the end, no idle
# timeout: it holds its source subtask and the window (the holdsWatermark
# panels have a row to show). Four hours at speed 100 is 144 s of real
# time, far more than the queries need: the test stops the job when they
# are done, and a job that ended would leave the server only stale series.
# A checkpoint every minute of processing time (0.6 s) gives the job's
# checkpoint series, which only a checkpointing job has.
quiet_partition_job 100 "$scratch/out.csv" "2 min" "4 h" "4 h" |
	awk -v dir="$scratch/chk" '{ print }
		$0 == "[job]" { print "checkpoint_interval = 1 min"; print "checkpoint_dir = " dir }' \
		>"$scratch/job.conf"
grep -q '^checkpoint_interval = 1 min$' "$scratch/job.conf" || fail "no checkpoints in the job"

$INTERRUPTIBLE "$WMRUN" --quiet --prometheus 0 "$scratch/job.conf" \
	2>"$scratch/err" &
job=$!
# serving -- the job is running and has said where its endpoint is.
serving() {
	kill -0 "$job" 2>/dev/null || {
		cat "$scratch/err" >&2
		fail "wmrun ended first"
	}
	grep -q '^wmrun: Prometheus metrics at ' "$scratch/err"
}
await "the endpoint's port" serving
port=$(sed -n 's|^wmrun: Prometheus metrics at http://127\.0\.0\.1:\([0-9]*\)/metrics$|\1|p' \
	"$scratch/err")
[ -n "$port" ] || fail "no port in: $(cat "$scratch/err")"

start_prometheus "$port"

# Every query, as Grafana would send it for this job, until each has
# answered with data or 60 s have passed. The job's name is filtered as
# Flink's reporter filters label values: one-quiet-partition becomes
# one_quiet_partition.
python3 - "$dashboard" "$api" "$job" job_name=one_quiet_partition \
	task_name=Source:_events <<'PY' ||
import json, re, sys, time, urllib.error, urllib.parse, urllib.request

path, api, job_pid = sys.argv[1:4]
# What a variable's query must offer (one of its values), by its name; a
# variable not named here must offer something.
offers = dict(a.split("=", 1) for a in sys.argv[4:])
base = "http://127.0.0.1:%s/api/v1/" % api
# Wall clock for the whole of it: the server needs a few scrapes before a
# rate() over $__rate_interval has two samples, a watermark needs the job
# to have sent its first, and a loaded machine makes both slower.
deadline = time.monotonic() + 60
# Grafana makes $__rate_interval at least four scrape intervals (1 s
# here), so that a rate() always has two samples to go on.
builtins = {"__rate_interval": "4s", "__interval": "1s",
            "__range": "60s", "__range_s": "60", "__range_ms": "60000"}
RE2_SPECIAL = set("\\.+*?()|[]{}^$")


def promql_string(s):
    # Inside a double-quoted PromQL string.
    return s.replace("\\", "\\\\").replace('"', '\\"')


def regex_literal(s):
    return "".join("\\" + c if c in RE2_SPECIAL else c for c in s)


def job_alive():
    # A job that has ended but is not yet reaped is a zombie: ended.
    try:
        with open("/proc/%s/stat" % job_pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def get(endpoint, params):
    """The server's answer (status, data), or ("error", why)."""
    url = base + endpoint + "?" + urllib.parse.urlencode(params)
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            a = json.load(r)
    except urllib.error.HTTPError as e:
        try:
            a = json.load(e)
        except ValueError:
            return "error", "HTTP %d" % e.code
    except (OSError, ValueError) as e:
        return "error", str(e)
    if a.get("status") != "success":
        return "error", "%s: %s" % (a.get("errorType"), a.get("error"))
    return "success", a.get("data")


values = {}
# $name, ${name}, ${name:format} and [[name]], as Grafana writes them.
REFERENCE = re.compile(r"\$\{(\w+)(?::\w+)?\}|\$(\w+)|\[\[(\w+)\]\]")


def value_of(m):
    name = m.group(1) or m.group(2) or m.group(3)
    return builtins.get(name, values.get(name))


def substitute(text):
    """text with every variable set, or None where one is unknown or a '$'
    stands outside a reference (looked for before the values go in: a
    value may hold a '$' of its own, escaped)."""
    if "$" in REFERENCE.sub(lambda m: "" if value_of(m) is not None
                            else m.group(0), text):
        return None
    return REFERENCE.sub(value_of, text)


def wait_for(what, attempt):
    """attempt() until it gives an answer; None at the deadline."""
    while True:
        if not job_alive():
            sys.exit("FAIL: wmrun ended while %s" % what)
        got = attempt()
        if got is not None or time.monotonic() > deadline:
            return got
        time.sleep(0.5)


d = json.load(open(path))
failed = []
# The variables in their order (a later one may use an earlier one), each
# a label_values() query: the label's values among the series it matches.
for v in d.get("templating", {}).get("list", []):
    if v.get("type") != "query":
        continue
    q = v.get("query")
    q = q.get("query", "") if isinstance(q, dict) else q or ""
    if substitute(q) is None:
        failed.append("variable %s: a variable or '$' is left in %s" % (v["name"], q))
        continue
    q = substitute(q)
    m = re.fullmatch(r"\s*label_values\(\s*(?:(.*\S)\s*,\s*)?(\w+)\s*\)\s*", q)
    if not m:
        failed.append("variable %s: %r is not a label_values() query" % (v["name"], q))
        continue
    selector, label = m.groups()
    params = {"match[]": selector} if selector else {}
    want = offers.get(v["name"])

    def label_values():
        status, found = get("label/%s/values" % urllib.parse.quote(label, safe=""),
                            params)
        if status == "success" and found and (want is None or want in found):
            return found
        return None
    found = wait_for("variable %s's query ran" % v["name"], label_values)
    if found is None:
        failed.append("variable %s: %s does not offer %s"
                      % (v["name"], q, want or "anything"))
        continue
    print("variable %s: %s -> %s" % (v["name"], q, ", ".join(found)))
    if v.get("multi") or v.get("includeAll"):
        # "All" as Grafana sends it without an allValue: every value,
        # escaped for a regular expression inside a PromQL string.
        values[v["name"]] = "(" + "|".join(
            promql_string(regex_literal(x)) for x in found) + ")"
    else:
        # One value (the job the test runs), inside a PromQL string.
        values[v["name"]] = promql_string(want or found[0])
if failed:
    sys.exit("\n".join("FAIL: " + f for f in failed))

pending = []
for p in d["panels"] + [q for p in d["panels"] for q in p.get("panels", [])]:
    for t in p.get("targets", []):
        expr = substitute(t["expr"])
        if expr is None:
            failed.append("panel %r (%s): a variable or '$' is left in %s"
                          % (p["title"], t["refId"], t["expr"]))
        else:
            pending.append((p["title"], t["refId"], expr))
if failed:
    sys.exit("\n".join("FAIL: " + f for f in failed))
print("%d expressions" % len(pending))

last = {}


def round_of_queries():
    for item in list(pending):
        status, data = get("query", {"query": item[2]})
        if status != "success":
            last[item] = data
            continue
        if data["resultType"] in ("scalar", "string"):
            print("data: %r (%s): %s = %s" % (item[0], item[1], item[2],
                                              data["result"][1]))
            pending.remove(item)
            continue
        if not data["result"]:
            last[item] = "an empty result"
            continue
        r = data["result"][0]
        value = r["value"][1] if "value" in r else r["values"][-1][1]
        shown = {k: r["metric"][k] for k in
                 ("task_name", "subtask_index", "split", "channel")
                 if k in r["metric"]}
        print("data: %r (%s): %s = %s %s (%d series)" % (
            item[0], item[1], item[2], value, shown, len(data["result"])))
        pending.remove(item)
    return True if not pending else None


wait_for("the dashboard's queries ran", round_of_queries)
for title, ref, expr in pending:
    failed.append("panel %r (%s) returned no data within 60 s: %s (last answer: %s)"
                  % (title, ref, expr, last.get((title, ref, expr))))
if failed:
    sys.exit("\n".join("FAIL: " + f for f in failed))
PY
	fail "not every query of the dashboard returned data"
interrupt "$job"
job=""
echo ok
