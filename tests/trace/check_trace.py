#!/usr/bin/env python3
"""Checks tessera-trace on a hand-made trace (data/small.trace): 3 workers (cpu 0, cpu 1 on
the host, cuda 0 on node 1), 6 tasks of 3 codelets, 9 edges (two of them to tasks the trace
does not hold), 3 transfers on 2 links, 9 sleeps, 1 ms long. Its times are multiples of 10 us,
chosen so that the summary can be worked out by hand (see SUMMARY below).

    check_trace.py <tessera-trace> <small.trace> outputs   the five outputs
    check_trace.py <tessera-trace> <small.trace> errors    bad traces (exit 1, byte offset),
                                                           bad command lines (exit 2)
    check_trace.py <tessera-trace> <small.trace> png       the Gantt chart drawn by rsvg-convert
                                                           is not blank (skips without it)
    check_trace.py <tessera-trace> <small.trace> pj_dump   PajeNG's pj_dump reads the Paje
                                                           trace back (skips without it)
Exit status: 0 when every check passes, 1 otherwise, 77 when skipped."""
import json
import os
import re
import shlex
import shutil
import struct
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
import zlib

SKIP = 77
tool, trace_path, mode = sys.argv[1], sys.argv[2], sys.argv[3]
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
    return ok


def run(*args):
    return subprocess.run([tool, *args], capture_output=True, text=True, timeout=60)


# ---- the trace, read independently of the tool ------------------------------------------------

def read_trace(path):
    t = {"workers": [], "nodes": [], "codelets": [], "tasks": [], "edges": [], "transfers": [],
         "idles": [], "meta": {}}
    for line in open(path, encoding="utf-8").read().splitlines()[1:]:
        f = line.split("\t")
        if f[0] == "meta":
            t["meta"][f[1]] = f[2]
        elif f[0] == "node":
            t["nodes"].append(f[3])
        elif f[0] == "worker":
            t["workers"].append(f[4])
        elif f[0] == "codelet":
            t["codelets"].append(f[2])
        elif f[0] == "task":
            keys = ["seq", "codelet", "worker", "call", "submit", "ready", "begin", "start", "end",
                    "bytes"]
            task = dict(zip(keys, map(int, f[1:11])))
            task["tile"] = f[13]
            t["tasks"].append(task)
        elif f[0] == "edge":
            t["edges"].append((int(f[1]), int(f[2]), f[3]))
        elif f[0] == "transfer":
            t["transfers"].append(tuple(map(int, f[1:6])))
        elif f[0] == "idle":
            t["idles"].append(tuple(map(int, f[1:4])))
    return t


T = read_trace(trace_path)
SEQS = {task["seq"] for task in T["tasks"]}

# ---- the summary, by hand ---------------------------------------------------------------------
# Times in us; every worker's time is 1000 us. Tasks (worker: begin [start] end):
#   1 potrf cpu 0: 100..300    2 trsm cuda 0: 300 [350] 450    3 trsm cpu 1: 400..500
#   4 gemm cuda 0: 450..600    5 gemm cpu 0: 500 [520] 700     6 potrf cpu 1: 800..900
# Ready tasks not yet begun: only task 3, over 300..400 (ready at 300, begun at 400).
# Next task to become ready: task 1 at 100 (submitted at 100: ready on submission), tasks 2-3
# at 300 and 4 at 450, 5 at 500 (submitted at 110-140: held by dependencies), task 6 at 800
# (submitted at 800: ready on submission).
# cpu 0 gaps: 0..100 submission (task 1); 300..400 scheduler (task 3 waits);
#   400..500 deps (tasks 4, 5); 700..800 submission (task 6, submitted after the gap began);
#   800..1000 deps (nothing comes) -> deps 300, submission 200, scheduler 100
# cpu 1 gaps: 0..100 submission; 100..300 deps; 300..400 scheduler; 500..800 submission;
#   900..1000 deps -> deps 300, submission 400, scheduler 100
# cuda 0 gaps: 0..100 submission; 100..300 deps; 600..800 submission; 800..1000 deps
#   -> deps 400, submission 300, scheduler 0
# busy (START..END): cpu 0 200 + 180, cpu 1 100 + 100, cuda 0 100 + 150; data (BEGIN..START):
# cpu 0 20, cuda 0 50. Sleeps ('idle'): cpu 0 80+80+180, cpu 1 280+280+80, cuda 0 280+180+180.
# Overhead = 1000 - busy - data - asleep.
SUMMARY = {
    # worker: (tasks, busy%, data%, idle%, overhead%) of its own 1000 us
    "workers": {0: (2, 38.0, 2.0, 34.0, 26.0), 1: (2, 20.0, 0.0, 64.0, 16.0),
                2: (2, 25.0, 5.0, 64.0, 6.0)},
    # worker: (busy, data, deps, submit, sched) in us, as percentages of 3 x 1000 us
    "causes": {"0": (380, 20, 300, 200, 100), "1": (200, 0, 300, 400, 100),
               "2": (250, 50, 400, 300, 0), "all": (830, 70, 1000, 900, 200)},
    # (codelet, arch): (runs, mean, min, max) in ms
    "codelets": {("potrf", "all"): (2, 0.150, 0.100, 0.200), ("potrf", "cpu"): (2, 0.150, 0.100, 0.200),
                 ("trsm", "all"): (2, 0.100, 0.100, 0.100), ("trsm", "cpu"): (1, 0.100, 0.100, 0.100),
                 ("trsm", "cuda"): (1, 0.100, 0.100, 0.100), ("gemm", "all"): (2, 0.165, 0.150, 0.180),
                 ("gemm", "cpu"): (1, 0.180, 0.180, 0.180), ("gemm", "cuda"): (1, 0.150, 0.150, 0.150)},
    # link: (transfers, bytes, active ms, MB/s): host -> cuda0 carries two overlapping
    # transfers (300..350 and 310..340: active 50 us), 8192 B / 50 us = 163.84 MB/s
    "links": {"host -> cuda0": (2, 8192, 0.050, 163.84), "cuda0 -> host": (1, 8192, 0.020, 409.60)},
}


def check_summary(text):
    check("total time: 1.000 ms; 3 workers, 2 memory nodes, 6 tasks, 9 edges, 3 transfers" in text,
          "summary: wrong header line")
    sections = re.split(r"\n(?=\S)", text)
    by_title = {s.split("\n", 1)[0].split(" (")[0]: s.splitlines()[1:] for s in sections}
    for key in ["workers", "codelets", "links", "why workers were not running tasks"]:
        if not check(key in by_title, f"summary: no section '{key}'"):
            return
    rows = [l.split() for l in by_title["workers"] if re.match(r"\s+\d+\s", l)]
    got = {int(r[0]): (int(r[-5]), *map(float, r[-4:])) for r in rows}
    check(got == SUMMARY["workers"], f"summary workers: {got} != {SUMMARY['workers']}")

    rows = [l.split() for l in by_title["why workers were not running tasks"]
            if re.match(r"\s+(\d+|all)\s", l)]
    got = {r[0]: tuple(map(float, r[-5:])) for r in rows}
    want = {k: tuple(round(100 * v / 3000, 2) for v in us) for k, us in SUMMARY["causes"].items()}
    check(got == want, f"summary causes: {got} != {want}")
    for k, us in SUMMARY["causes"].items():
        check(sum(us) == (3000 if k == "all" else 1000), f"hand-computed causes of {k} do not add up")
    for name in ["data (a)", "deps (b)", "submit (c)", "sched (d)"]:
        check(any(l.strip().startswith(name + ":") for l in by_title[
            "why workers were not running tasks"]), f"summary: no definition of '{name}'")

    rows = [l.split() for l in by_title["codelets"][1:] if re.match(r"\s+\w+\s+\w+\s+\d", l)]
    got = {(r[0], r[1]): (int(r[2]), *map(float, r[3:6])) for r in rows}
    check(got == SUMMARY["codelets"], f"summary codelets: {got} != {SUMMARY['codelets']}")

    got = {}
    for l in by_title["links"]:
        m = re.match(r"\s+(\S+ -> \S+)\s+(\d+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)$", l)
        if m:
            got[m[1]] = (int(m[2]), int(m[3]), float(m[4]), float(m[5]))
    check(got == SUMMARY["links"], f"summary links: {got} != {SUMMARY['links']}")


# ---- the other outputs ------------------------------------------------------------------------

def check_perfetto(path):
    doc = json.load(open(path, encoding="utf-8"))
    check(doc.get("displayTimeUnit") == "ms", "perfetto: displayTimeUnit is not ms")
    check(doc.get("otherData", {}).get("host") == T["meta"]["host"],
          "perfetto: the meta (with quotes) did not survive JSON escaping")
    ev = doc["traceEvents"]
    threads = {e["tid"]: e["args"]["name"] for e in ev
               if e["ph"] == "M" and e["name"] == "thread_name" and e["pid"] == 1}
    check(threads == dict(enumerate(T["workers"])), f"perfetto: worker threads {threads}")
    tasks = [e for e in ev if e["ph"] == "X" and e.get("cat") == "task"]
    check(len(tasks) == len(T["tasks"]), f"perfetto: {len(tasks)} task events for {len(T['tasks'])}")
    by_seq = {e["args"]["seq"]: e for e in tasks}
    for task in T["tasks"]:
        e = by_seq.get(task["seq"])
        if not check(e is not None, f"perfetto: no event for task {task['seq']}"):
            continue
        check(e["name"] == T["codelets"][task["codelet"]] and e["tid"] == task["worker"] and
              abs(e["ts"] - task["start"] / 1e3) < 1e-9 and
              abs(e["dur"] - (task["end"] - task["start"]) / 1e3) < 1e-9 and
              abs(e["args"]["wait_for_data_us"] - (task["start"] - task["begin"]) / 1e3) < 1e-9 and
              e["args"]["tile"] == task["tile"] and e["args"]["bytes"] == task["bytes"],
              f"perfetto: task {task['seq']}'s event is wrong: {e}")
    fetches = sorted((e["tid"], e["ts"], e["dur"]) for e in ev if e["ph"] == "X" and e["name"] == "fetch")
    want = sorted((t["worker"], t["begin"] / 1e3, (t["start"] - t["begin"]) / 1e3)
                  for t in T["tasks"] if t["start"] > t["begin"])
    check(fetches == want, f"perfetto: fetch slices {fetches} != {want}")
    idles = [e for e in ev if e["ph"] == "X" and e["name"] == "idle"]
    check(len(idles) == len(T["idles"]), f"perfetto: {len(idles)} idle slices")
    transfers = [e for e in ev if e["ph"] == "X" and e.get("cat") == "transfer"]
    check(len(transfers) == len(T["transfers"]) and all(e["pid"] == 2 for e in transfers),
          "perfetto: transfers are not one slice each in process 'links'")
    links = [e for e in ev if e["ph"] == "M" and e["name"] == "thread_name" and e["pid"] == 2]
    check(len(links) == 2, f"perfetto: {len(links)} link threads for 2 links")


def check_gantt(path):
    root = ET.parse(path).getroot()  # raises on XML that is not well-formed
    ns = "{http://www.w3.org/2000/svg}"
    check(root.tag == ns + "svg", "gantt: the root is not <svg>")
    rows = [g for g in root.iter(ns + "g") if g.get("class") == "worker-row"]
    check(sorted(g.get("data-worker") for g in rows) == ["0", "1", "2"],
          f"gantt: worker rows {[g.get('data-worker') for g in rows]}")
    check(len([g for g in root.iter(ns + "g") if g.get("class") == "link-row"]) == 2,
          "gantt: not one row per link")
    tasks = [r for r in root.iter(ns + "rect") if r.get("class") == "task"]
    check(len(tasks) == len(T["tasks"]), f"gantt: {len(tasks)} task rectangles")
    check(all(r.find(ns + "title") is not None for r in tasks), "gantt: a task has no tooltip")
    texts = " ".join("".join(e.itertext()) for e in root.iter(ns + "text"))
    check(T["meta"]["host"] in texts and "dmdas" in texts, "gantt: the title lacks the meta")
    check("potrf: 2 tasks, mean 0.150 ms" in texts, "gantt: the legend lacks potrf's count/mean")


def check_dot(path):
    text = open(path, encoding="utf-8").read()
    edges = [(int(a), int(b)) for a, b in re.findall(r"^\s*t(\d+) -> t(\d+)\b", text, re.M)]
    want = []
    for a, b, _ in T["edges"]:
        if a in SEQS and b in SEQS and (a, b) not in want:
            want.append((a, b))
    check(edges == want, f"dot: edges {edges} != {want}")
    nodes = re.findall(r"^\s*t(\d+) \[", text, re.M)
    check(sorted(map(int, nodes)) == sorted(SEQS), f"dot: task nodes {nodes}")
    styles = dict(((int(a), int(b)), s) for a, b, s in
                  re.findall(r"^\s*t(\d+) -> t(\d+) \[style=(\w+)", text, re.M))
    kinds = {"raw": "solid", "war": "dashed", "waw": "dashed", "explicit": "bold"}
    for a, b, k in T["edges"]:
        if (a, b) in styles:
            check(styles[(a, b)] == kinds[k], f"dot: edge {a}->{b} ({k}) drawn {styles[(a, b)]}")
    if shutil.which("dot"):
        r = subprocess.run(["dot", "-Tplain", path], capture_output=True, text=True)
        check(r.returncode == 0, f"dot: Graphviz refuses the file: {r.stderr}")


def check_paje(path):
    """The Paje format: %EventDef blocks, then one event per line, its number first and its
    fields as declared (strings with blanks in double quotes), in time order; containers are
    created before use. Each task's codelet is set as its worker's state at START."""
    defs, fields, name = {}, [], None
    containers, last_time, states = {"0"}, 0.0, []
    for n, line in enumerate(open(path, encoding="utf-8").read().splitlines(), 1):
        if line.startswith("%EventDef"):
            _, name, number = line.split()
            fields = []
        elif line.startswith("%EndEventDef"):
            defs[number] = (name, fields)
        elif line.startswith("%"):
            fields.append(line[1:].split()[0])
        elif line.strip():
            f = shlex.split(line)
            if not check(f[0] in defs, f"paje line {n}: undefined event {f[0]}"):
                continue
            event, names = defs[f[0]]
            if not check(len(f) - 1 == len(names), f"paje line {n}: {len(f) - 1} fields for {names}"):
                continue
            v = dict(zip(names, f[1:]))
            if "Time" in v:
                check(float(v["Time"]) >= last_time, f"paje line {n}: time goes back")
                last_time = float(v["Time"])
            if event == "PajeCreateContainer":
                check(v["Container"] in containers, f"paje line {n}: unknown parent container")
                containers.add(v["Alias"])
            for key in ["Container", "StartContainer", "EndContainer"]:
                if key in v and event != "PajeCreateContainer":
                    check(v[key] in containers, f"paje line {n}: unknown container {v[key]}")
            if event == "PajeSetState":
                states.append((v["Container"], round(float(v["Time"]) * 1e9), v["Value"]))
    for name in ["PajeDefineContainerType", "PajeDefineStateType", "PajeDefineEntityValue",
                 "PajeCreateContainer", "PajeSetState", "PajeDestroyContainer"]:
        check(name in [d[0] for d in defs.values()], f"paje: no {name} definition")
    for task in T["tasks"]:
        want = (f"w{task['worker']}", task["start"], f"c{task['codelet']}")
        check(want in states, f"paje: no state {want} for task {task['seq']}")
    check(sum(1 for s in states if s[2].startswith("c")) == len(T["tasks"]),
          "paje: not one codelet state per task")


def outputs():
    with tempfile.TemporaryDirectory() as d:
        out = {k: os.path.join(d, "out." + k) for k in ["json", "paje", "svg", "dot"]}
        r = run(trace_path, "--perfetto", out["json"], "--paje", out["paje"], "--gantt", out["svg"],
                "--dot", out["dot"], "--summary")
        if not check(r.returncode == 0, f"exit status {r.returncode}: {r.stderr}"):
            return
        check_summary(r.stdout)
        check_perfetto(out["json"])
        check_gantt(out["svg"])
        check_dot(out["dot"])
        check_paje(out["paje"])
        # no output asked: the summary
        check(run(trace_path).stdout == r.stdout, "without options, the output is not the summary")


# ---- errors -----------------------------------------------------------------------------------

def refuses(args, status, offset=None, what=""):
    r = run(*args)
    check(r.returncode == status, f"{what}: exit status {r.returncode}, expected {status} "
                                  f"(stderr: {r.stderr.strip()})")
    if offset is not None:
        check(f"byte {offset}:" in r.stderr, f"{what}: the message does not name byte {offset}: "
                                             f"{r.stderr.strip()}")
    return r


def errors():
    data = open(trace_path, "rb").read()
    line3 = data.index(b"task\t3\t")  # the byte offset of task 3's line
    with tempfile.TemporaryDirectory() as d:
        def variant(name, content):
            path = os.path.join(d, name)
            open(path, "wb").write(content)
            return path

        # cut in the middle of task 3's line: that line has no newline
        refuses([variant("cut.trace", data[: line3 + 12])], 1, line3, "cut mid-line")
        # cut after a whole line: no 'end' record, reported at the end of the file
        refuses([variant("cut2.trace", data[:line3])], 1, line3, "cut between lines")
        # a bad integer: task 3's BEGIN
        bad = data[:line3] + data[line3:].replace(b"\t400000\t", b"\t4o0000\t", 1)
        check(bad != data, "the corruption did not apply")
        r = refuses([variant("bad.trace", bad)], 1, line3, "bad integer")
        check("4o0000" in r.stderr, "bad integer: the message does not quote the field")
        # not a trace at all, an empty file, a missing file
        refuses([variant("text.trace", b"hello\n")], 1, 0, "not a trace")
        refuses([variant("empty.trace", b"")], 1, 0, "empty file")
        refuses([os.path.join(d, "missing.trace")], 1, None, "missing file")
        # an output that cannot be written
        refuses([trace_path, "--gantt", os.path.join(d, "no", "such", "dir.svg")], 1, None,
                "unwritable output")
    for args, what in [([], "no trace"), ([trace_path, "--gantt"], "option without value"),
                       ([trace_path, "--bogus"], "unknown option"),
                       ([trace_path, "--gantt", "--summary"], "option followed by an option"),
                       ([trace_path, trace_path], "two traces")]:
        r = refuses(args, 2, None, what)
        check("usage: tessera-trace" in r.stderr, f"{what}: no usage on stderr")
    r = run("--help")
    check(r.returncode == 0 and "usage: tessera-trace TRACE" in r.stdout, "--help")


# ---- the picture ------------------------------------------------------------------------------

def png_pixels(path):
    """The pixels of an 8-bit non-interlaced PNG (what rsvg-convert writes), as a set of
    tuples, through zlib and the PNG filters (no PIL)."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat = 8, b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos: pos + 8])
        body = data[pos + 8: pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    assert depth == 8 and interlace == 0, f"PNG depth {depth}, interlace {interlace}"
    channels = {0: 1, 2: 3, 4: 2, 6: 4}[colour]
    raw, stride = zlib.decompress(idat), width * channels
    pixels, prev = set(), bytearray(stride)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1: (y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = prev[i]
            c = prev[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        pixels.update(tuple(line[i: i + channels]) for i in range(0, stride, channels))
        prev = line
    return pixels


def png():
    rsvg = shutil.which("rsvg-convert")
    if not rsvg:
        print("rsvg-convert not found (Debian: librsvg2-bin): skipped")
        sys.exit(SKIP)
    with tempfile.TemporaryDirectory() as d:
        svg, out = os.path.join(d, "gantt.svg"), os.path.join(d, "gantt.png")
        r = run(trace_path, "--gantt", svg)
        if not check(r.returncode == 0, f"exit status {r.returncode}: {r.stderr}"):
            return
        subprocess.run([rsvg, "-o", out, svg], check=True)
        pixels = png_pixels(out)
        check(len(pixels) > 1, "the picture is blank")
        # the first task's colour (wide rectangles: their inside is not antialiased)
        ns = "{http://www.w3.org/2000/svg}"
        fill = next(r.get("fill") for r in ET.parse(svg).getroot().iter(ns + "rect")
                    if r.get("class") == "task")
        rgb = tuple(int(fill[i: i + 2], 16) for i in (1, 3, 5))
        check(any(p[:3] == rgb for p in pixels), f"no pixel of the first task's colour {fill}")


def pj_dump():
    dump = shutil.which("pj_dump")
    if not dump:
        print("pj_dump not found (Debian: pajeng): skipped")
        sys.exit(SKIP)
    with tempfile.TemporaryDirectory() as d:
        paje = os.path.join(d, "out.paje")
        r = run(trace_path, "--paje", paje)
        if not check(r.returncode == 0, f"exit status {r.returncode}: {r.stderr}"):
            return
        r = subprocess.run([dump, paje], capture_output=True, text=True)
        if not check(r.returncode == 0, f"pj_dump refuses the trace: {r.stderr}"):
            return
        states = set()
        for line in r.stdout.splitlines():
            f = [x.strip() for x in line.split(",")]
            if f[0] == "State":  # State, container, type, start, end, duration, imbrication, value
                states.add((f[1], round(float(f[3]) * 1e9), round(float(f[4]) * 1e9), f[7]))
        for t in T["tasks"]:
            want = (T["workers"][t["worker"]], t["start"], t["end"], T["codelets"][t["codelet"]])
            check(want in states, f"pj_dump: no state {want}")
        links = [l for l in r.stdout.splitlines() if l.startswith("Link,")]
        check(len(links) == len(T["transfers"]), f"pj_dump: {len(links)} links")


{"outputs": outputs, "errors": errors, "png": png, "pj_dump": pj_dump}[mode]()
for f in failures:
    print("FAIL:", f)
print(f"{mode}: {'FAILED' if failures else 'passed'}")
sys.exit(1 if failures else 0)
