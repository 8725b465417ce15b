#!/usr/bin/env python3
"""The held-out check: does the dispatcher's table fit shapes it was not tuned on?

Draws --count random shapes with --seed, spread over --dtypes in turn: rows B*C from 1 to --max-rows
and L from 1 to 2^20, both log-uniform; pads mostly in -16..16, sometimes up to 4096 or a crop of up
to the whole row, so alignments other than the sweep's come up; none with more than --max-bytes of
dy plus dx, none with OL < 0. Tunes them exhaustively (every candidate on every shape), asks the
dispatcher (`padtune explain`) which kernel each shape gets, and reports per shape pick/best: the
median of the dispatcher's pick over the best median of any candidate, from the same measurement
cache. Issue 23's targets: pick/best at most 1.05 on every shape and 1.02 as a geometric mean.

    cmake --build --preset gpu && lab/bin/held-out --seed 1 --count 24   # results/<gpu>/held-out.{md,json}
    lab/bin/held-out --table results/nvidia-h200.json      # ask with this table, not the embedded one
    lab/bin/held-out --backend host --count 6 --seed 3 --dtypes f32,bf16    # CTest lab.held_out.host
    lab/bin/held-out --work DIR -- --candidate-timeout 120   # arguments after -- go to padtune tune
    lab/bin/held-out --seed 6 --count 32 --work DIR --measured --table T.json -- --variant ...
                        # no GPU: the dispatcher with table T judged on DIR/cache.jsonl, measured before
    lab/bin/held-out --pool results/nvidia-h200/held-out*.json --out results/nvidia-h200/held-out-pooled.md
                        # one summary over the reports of several seeds (of one table)

Writes OUT/held-out.md (the command, the shapes sorted by pick/best, the summary) and
OUT/held-out.json (the same, with the seed, date, device fingerprint from the cache's header, the
table explain was given and the exact tune commands). OUT defaults to results/<gpu>/ on cuda (the
name padtune gives the GPU's table: nvidia-h200) and a new temporary folder on host. WORK (default
$TMPDIR/padtune-held-out/<backend>) keeps the sizes files (sizes-<dtype>.txt, 'B C L pad_left
pad_right' per line), the tune's cache (cache.jsonl), its table and logs: a rerun with the same WORK
measures only what is missing. After a change to a kernel use a new WORK (padtune refuses a cache of
other kernel sources).

Prints one summary line: 'held-out: PASS|FAIL: ...; checks passed: ...' (or 'checks FAILED: ...').
Exit codes: 0 the report is written, targets met or not; 1 a pick or a candidate has no successful
measurement on a shape (named), or padtune failed; 2 bad arguments.
"""
import argparse
import datetime
import hashlib
import json
import math
import os
import random
import re
import shlex
import subprocess
import sys
import tempfile

from padtune_lab.cache import MEMCPY_FLOOR, read_ok
from padtune_lab.dtypes import SIZE
from padtune_lab.ids import kernel_key
from padtune_lab.output_file import write_output
from padtune_lab.paths import ROOT

TARGET_WORST, TARGET_GEOMEAN = 1.05, 1.02
L_LOG2 = 20  # as far as the default sweep goes: rows of 2^20 elements (and 2^22 rows: --max-rows)
# padtune tune's arguments that this script sets itself, or that would make the search not exhaustive.
OWN_TUNE_ARGS = {"--backend", "--dtype", "--sizes", "--results-dir", "--table", "--cache", "--budget", "--shard", "--exhaustive",
                 "--json"}


def fail(code, message):
    print(f"held-out.py: {message}", file=sys.stderr)
    sys.exit(code)


def parse_bytes(text):
    m = re.fullmatch(r"\s*(\d+)\s*(|k|kib|m|mib|g|gib)\s*", text, re.IGNORECASE)
    if not m or int(m.group(1)) <= 0:
        raise argparse.ArgumentTypeError(f"'{text}' is not a positive byte count (1048576, 4MiB, 512M, 1GiB)")
    return int(m.group(1)) << {"": 0, "k": 10, "kib": 10, "m": 20, "mib": 20, "g": 30, "gib": 30}[m.group(2).lower()]


def parse_args(argv):
    own, extra = (argv[:argv.index("--")], argv[argv.index("--") + 1:]) if "--" in argv else (argv, [])
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
                                 usage="%(prog)s [options] [-- PADTUNE_TUNE_ARGS ...]")
    ap.add_argument("--seed", type=int, default=1, help="of the random.Random that draws the shapes (default 1)")
    ap.add_argument("--count", type=int, default=24, help="shapes in all (default 24)")
    ap.add_argument("--dtypes", default="f32,f64,f16,bf16", help="taken in turn by the shapes (default: all four)")
    ap.add_argument("--backend", choices=["cuda", "host"], default="cuda", help="default cuda")
    ap.add_argument("--padtune", help="default build/gpu/tuner/padtune, else build/ci/tuner/padtune")
    ap.add_argument("--table", help="the table the dispatcher is asked with (padtune explain --results; default: "
                    "the one it finds itself, the table embedded for the device)")
    ap.add_argument("--any-device", action="store_true", help="take --table even if it is another device model's")
    ap.add_argument("--out", help="where held-out.md and held-out.json go (default: results/<gpu>/ on cuda, a "
                    "temporary folder on host)")
    ap.add_argument("--work", help="the sizes files, the tune's cache and logs (default: "
                    "$TMPDIR/padtune-held-out/<backend>)")
    ap.add_argument("--measured", action="store_true", help="judge with the measurements already in WORK's "
                    "cache.jsonl: no padtune tune, no GPU (a new table or dispatcher on shapes measured before; "
                    "needs --work)")
    ap.add_argument("--autotune", action="store_true", help="ask the dispatcher with first-use timing on "
                    "(padtune explain --autotune: the fastest of the vote's finalists, timed on the shape); the "
                    "vote's own pick is reported beside it")
    ap.add_argument("--max-bytes", type=parse_bytes, help="at most this many bytes of dy plus dx per shape (default "
                    "512MiB on cuda, 4MiB on host)")
    ap.add_argument("--max-rows", type=int, help="rows B*C drawn from 1 to this (default 2^22 on cuda, as the sweep; "
                    "2^12 on host, whose emulation takes time with rows times threads per row, not with bytes)")
    a = ap.parse_args(own)
    a.tune_args = extra
    a.dtypes = [d for d in a.dtypes.replace(" ", ",").split(",") if d]
    if not a.dtypes or any(d not in SIZE for d in a.dtypes) or len(set(a.dtypes)) != len(a.dtypes):
        ap.error(f"--dtypes must list distinct dtypes of {', '.join(SIZE)}, got '{','.join(a.dtypes)}'")
    if a.count < 1:
        ap.error(f"--count must be at least 1, got {a.count}")
    if a.max_bytes is None:
        a.max_bytes = (512 if a.backend == "cuda" else 4) << 20
    if a.max_rows is None:
        a.max_rows = 1 << (22 if a.backend == "cuda" else 12)
    if a.max_rows < 1:
        ap.error(f"--max-rows must be at least 1, got {a.max_rows}")
    if a.padtune is None:
        built = [os.path.join(ROOT, "build", preset, "tuner", "padtune") for preset in ("gpu", "ci")]
        a.padtune = next((p for p in built if os.path.exists(p)), built[0])
    if not (os.path.isfile(a.padtune) and os.access(a.padtune, os.X_OK)):
        ap.error(f"--padtune {a.padtune} is not an executable file (build it: cmake --build --preset gpu)")
    if a.table is not None and not os.path.isfile(a.table):
        ap.error(f"--table {a.table} is not a file")
    if a.measured and not (a.work and os.path.isfile(os.path.join(a.work, "cache.jsonl"))):
        ap.error("--measured needs --work DIR with the cache.jsonl of an earlier run")
    if a.out is not None and os.path.exists(a.out) and not os.path.isdir(a.out):
        ap.error(f"--out {a.out} is not a folder")
    for t in extra:
        if t.split("=", 1)[0] in OWN_TUNE_ARGS:
            ap.error(f"'{t}' after --: held-out.py sets it, or it would make the search not exhaustive")
    return a


def draw_pad(rng, L):
    if rng.random() < 0.85:
        return rng.randint(-16, 16)
    wide = int(round(2 ** rng.uniform(4, 12)))  # 16 .. 4096
    return wide if rng.random() < 0.5 else -min(wide, L)  # a wide pad, or a crop of up to the whole row


def draw_shapes(seed, count, dtypes, max_bytes, max_rows):
    """[(dtype, (B, C, L, pad_left, pad_right))], shape k of dtype dtypes[k % len(dtypes)], no two alike."""
    rng = random.Random(seed)
    out = []
    for k in range(count):
        dtype = dtypes[k % len(dtypes)]
        for _ in range(100000):
            rows = min(max_rows, int(round(2 ** rng.uniform(0, math.log2(max_rows)))))
            B = max(1, int(round(rows ** rng.random())))  # log-uniform in 1..rows
            C = max(1, rows // B)
            L = int(round(2 ** rng.uniform(0, L_LOG2)))
            pl, pr = draw_pad(rng, L), draw_pad(rng, L)
            OL = pl + L + pr
            drawn = (dtype, (B, C, L, pl, pr))
            if OL >= 0 and B * C * (L + OL) * SIZE[dtype] <= max_bytes and drawn not in out:
                out.append(drawn)
                break
        else:
            fail(2, f"no shape of {dtype} fits --max-bytes {max_bytes}")
    return out


def padtune_json(cmd, code_if_refused=1):
    p = subprocess.run(cmd, text=True, capture_output=True)
    if p.returncode != 0:
        fail(code_if_refused, f"{shlex.join(cmd)} exited {p.returncode}: {p.stderr.strip()}")
    return json.loads(p.stdout)


def explain(a, dtype, shape, autotune=False):
    """What padtune explain --json says of the shape: instantiation, bucket, matched_bucket, table, reason.
    autotune: explain --autotune, which first dispatches the shape with first-use timing on (on the GPU)."""
    cmd = [a.padtune, "explain", "--backend", a.backend, "--dtype", dtype, "--shape", ",".join(map(str, shape)),
           "--json"] + (["--autotune"] if autotune else [])
    if a.table:
        cmd += ["--results", a.table] + (["--any-device"] if a.any_device else [])
    return padtune_json(cmd, 2 if a.table else 1)


def restriction(tune_args):
    """The --variant values and the last --filter of the arguments passed to padtune tune."""
    variants, filters, k = [], [], 0
    while k < len(tune_args):
        name, eq, value = tune_args[k].partition("=")
        if name in ("--variant", "--filter"):
            values = [value] if eq else []
            while not eq and k + 1 < len(tune_args) and not tune_args[k + 1].startswith("-") \
                    and not (name == "--filter" and values):
                k += 1
                values.append(tune_args[k])
            (variants if name == "--variant" else filters).extend(values)
        k += 1
    return variants, (filters[-1] if filters else None)


def candidates(padtune, dtype, variants, filt):
    """The ids padtune tune measures for dtype: every instantiation of it, less what --variant/--filter leave out."""
    listed = padtune_json([padtune, "list", "--json"] + (["--filter", filt] if filt else []))
    return [i["id"] for i in listed if i["dtype"] == dtype and (not variants or i["variant"] in variants)]


def tune(a, work, dtype, shapes):
    """Tunes the shapes of one dtype into WORK/cache.jsonl; returns the command."""
    sizes = os.path.join(work, f"sizes-{dtype}.txt")
    write_output(sizes, f"# lab/bin/held-out --seed {a.seed} --count {a.count}: the {dtype} shapes\n"
                 + "".join(" ".join(map(str, s)) + "\n" for s in shapes))
    cmd = [a.padtune, "tune", "--backend", a.backend, "--dtype", dtype, "--sizes", sizes, "--exhaustive",
           "--table", os.path.join(work, "table.json"), "--cache", os.path.join(work, "cache.jsonl")] + a.tune_args
    print(f"held-out.py: {shlex.join(cmd)}", file=sys.stderr, flush=True)
    with open(os.path.join(work, f"tune-{dtype}.log"), "w") as log:
        p = subprocess.run(cmd, stdout=log)  # the table to the log, the progress to stderr
    if p.returncode != 0:
        fail(1, f"padtune tune exited {p.returncode} for {dtype} (above); if it refused the cache (another padtune, "
                f"kernel sources, device or settings), use another --work or empty {work}")
    return shlex.join(cmd)


def compare(drawn, picks, times, expected, restricted, cache):
    """One row per shape (the pick against the best), and the problems found on the way."""
    rows, problems = [], []
    for (dtype, shape), e in zip(drawn, picks):
        by_id = times.get((dtype, shape), {})
        kernels = {i: t for i, t in by_id.items() if i != MEMCPY_FLOOR}
        where = f"{dtype} ({','.join(map(str, shape))})"
        unmeasured = [i for i in expected[dtype] if i not in kernels]
        if unmeasured:
            named = ", ".join(unmeasured[:3]) + (", ..." if len(unmeasured) > 3 else "")
            problems.append(f"{where}: {len(unmeasured)} of {len(expected[dtype])} candidates have no successful "
                            f"measurement in {cache} ({named})")
        if not kernels:
            continue
        pick, best = e["instantiation"], min(kernels, key=kernels.get)
        pick_us, best_us, copy_us = kernels.get(pick), kernels[best], by_id.get(MEMCPY_FLOOR)
        if pick_us is None:
            problems.append(f"{where}: the dispatcher's pick {pick} has no successful measurement in {cache}"
                            + (f" (the candidates were restricted: {restricted})" if restricted else ""))
        elif best_us > pick_us:
            problems.append(f"{where}: the best, {best} ({best_us} us), is slower than the pick ({pick_us} us)")
        B, C, L, pl, pr = shape
        rows.append({"dtype": dtype, "shape": list(shape), "bytes": B * C * (2 * L + pl + pr) * SIZE[dtype],
                     "bucket": e["bucket"], "matched_bucket": e["matched_bucket"], "table": e["table"],
                     "reason": e["reason"], "pick": pick, "pick_us": pick_us, "best": best, "best_us": best_us,
                     "pick_over_best": None if pick_us is None else pick_us / best_us,
                     "pick_rank": None if pick_us is None else 1 + sum(t < pick_us for t in kernels.values()),
                     "candidates": len(kernels), "copy_us": copy_us,
                     "best_over_copy": best_us / copy_us if copy_us else None})
    return rows, problems


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def f4(x):
    return "n/a" if x is None else f"{x:.4f}"


def summarize(rows, dtypes):
    timed = [r for r in rows if r["pick_over_best"] is not None]
    ratios = [r["pick_over_best"] for r in timed]
    worst = max(timed, key=lambda r: r["pick_over_best"], default=None)
    s = {"measured": len(ratios), "geomean": geomean(ratios), "worst": worst and worst["pick_over_best"],
         "worst_shape": worst and f"{worst['dtype']} ({', '.join(map(str, worst['shape']))})",
         "within_1.02": sum(r <= 1.02 for r in ratios), "within_1.05": sum(r <= 1.05 for r in ratios),
         "geomean_by_dtype": {d: geomean([r["pick_over_best"] for r in timed if r["dtype"] == d])
                              for d in dtypes if any(r["dtype"] == d for r in timed)}}
    s["targets_met"] = bool(ratios) and s["worst"] <= TARGET_WORST and s["geomean"] <= TARGET_GEOMEAN
    return s


def short(cand_id):
    key, jit = kernel_key(cand_id)
    if key is None:
        return cand_id
    _, variant, bo, t, w = key
    return f"{'jit ' if jit else ''}{variant} bo{bo} t{t} w{w}"


def table_info(path):
    """What a table file says of itself (device, when and how it was made), and its hash."""
    try:
        with open(path, "rb") as f:
            data = f.read()
        t = json.loads(data)
        return {"path": os.path.abspath(path), "sha256": hashlib.sha256(data).hexdigest(), "device": t.get("device"),
                "created": t.get("created"), "command": t.get("command"), "complete": t.get("complete")}
    except (OSError, ValueError) as e:
        return {"path": path, "error": str(e)}


def slug(device):
    """The file name padtune gives a device's table (device_fingerprint::slug): nvidia-h200."""
    if device.get("backend") == "host":
        return "host-emulation"
    return re.sub(r"[^a-z0-9]+", "-", device.get("name", "").lower()).strip("-") or "unknown-gpu"


def markdown(report):
    s = report["summary"]
    tables = ", ".join(sorted({r["table"] for r in report["shapes"]})) or "none"
    asked, timing = ((" --autotune", "; first-use timing on: the dispatcher times the vote's finalists on the shape "
                      "and takes the vote's first unless another is 2% faster") if report.get("autotune") else ("", ""))
    lines = [f"# Held-out check: {report['device'].get('name')} ({report['backend']})", "",
             f"Made by `{report['command']}` on {report['date']}: {report['count']} random shapes (seed "
             f"{report['seed']}, at most {report['max_rows']} rows and {report['max_bytes']} bytes of dy plus dx "
             f"each), every candidate timed on each (`{report['tune_commands'][0]}`, one run per dtype), the "
             f"dispatcher asked with `padtune explain{asked}` (table: {tables}{timing}). pick/best: the L2-cold median of the "
             "dispatcher's pick over the best candidate's, on the same shape; best/copy: the best over a "
             "device-to-device copy of the same bytes.", "",
             "| dtype | shape (B, C, L, pl, pr) | bucket | matched | pick | pick µs | best | best µs | pick/best "
             "| best/copy |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    num = lambda x, f: "missing" if x is None else format(x, f)  # noqa: E731
    for r in sorted(report["shapes"], key=lambda r: -(r["pick_over_best"] or math.inf)):
        lines.append(f"| {r['dtype']} | ({', '.join(map(str, r['shape']))}) | {r['bucket']} | "
                     f"{r['matched_bucket'] or '-'} | {short(r['pick'])} | {num(r['pick_us'], '.2f')} | "
                     f"{short(r['best'])} | {r['best_us']:.2f} | {num(r['pick_over_best'], '.4f')} | "
                     f"{num(r['best_over_copy'], '.2f')} |")
    lines += ["", f"pick/best: geometric mean {f4(s['geomean'])} (target {TARGET_GEOMEAN}), worst {f4(s['worst'])} "
              f"(target {TARGET_WORST}; {s['worst_shape']}), {s['within_1.02']} of {s['measured']} within 1.02, "
              f"{s['within_1.05']} within 1.05; per dtype "
              + ", ".join(f"{d} {f4(g)}" for d, g in s["geomean_by_dtype"].items()) + ".", "",
              f"**{report['line']}**", ""]
    if s.get("vote_alone"):
        v = s["vote_alone"]
        lines += [f"The vote alone (no timing) on the same shapes: geometric mean {f4(v['geomean'])}, worst "
                  f"{f4(v['worst'])}, {v['within_1.05']} of {v['measured']} within 1.05.", ""]
    if report["problems"]:
        lines += ["Problems:", ""] + [f"- {p}" for p in report["problems"]] + [""]
    return "\n".join(lines)


def pool(paths, out):
    """--pool: one summary over several reports of the same table (shapes of several seeds together)."""
    reports = []
    for path in paths:
        try:
            with open(path) as f:
                reports.append(json.load(f))
        except (OSError, ValueError) as e:
            fail(2, f"--pool: cannot read {path}: {e}")
    asked = {json.dumps(r.get("table_asked"), sort_keys=True) if not isinstance(r.get("table_asked"), dict)
             else r["table_asked"].get("sha256") for r in reports}
    if len(asked) != 1:
        fail(2, "--pool: the reports asked different tables (sha256 or lookup differ); pool reports of one table")
    seeds = [r["seed"] for r in reports]
    if len(set(seeds)) != len(seeds):
        fail(2, f"--pool: a seed is given twice ({', '.join(map(str, seeds))}): its shapes would count twice")
    rows = [dict(row, seed=r["seed"]) for r in reports for row in r["shapes"]]
    dtypes = list(dict.fromkeys(row["dtype"] for row in rows))
    s = summarize(rows, dtypes)
    command = shlex.join(["lab/bin/held-out"] + sys.argv[1:])
    worst = sorted((row for row in rows if row["pick_over_best"] is not None), key=lambda row: -row["pick_over_best"])
    lines = [f"# Held-out check, pooled: {reports[0]['device'].get('name')}", "",
             f"Made by `{command}`: {s['measured']} shapes of {len(reports)} held-out reports (seeds "
             f"{', '.join(str(r['seed']) for r in reports)}), one table asked (sha256 {asked.pop()}).", "",
             f"pick/best: geometric mean {f4(s['geomean'])} (target {TARGET_GEOMEAN}), worst {f4(s['worst'])} "
             f"(target {TARGET_WORST}; {s['worst_shape']}), {s['within_1.02']} within 1.02, {s['within_1.05']} "
             "within 1.05; per dtype " + ", ".join(f"{d} {f4(g)}" for d, g in s["geomean_by_dtype"].items()) + ".",
             "", "| seed | shapes | geomean | worst |", "| --- | --- | --- | --- |"]
    lines += [f"| {r['seed']} | {r['summary']['measured']} | {f4(r['summary']['geomean'])} | {f4(r['summary']['worst'])} |"
              for r in reports]
    vote = [row["vote_over_best"] for row in rows if row.get("vote_over_best") is not None]
    if vote:  # --autotune reports: the vote's own picks beside the timed ones
        lines += ["", f"The vote alone (no timing) on the same shapes: geometric mean {f4(geomean(vote))}, worst "
                  f"{f4(max(vote))}, {sum(x <= 1.05 for x in vote)} of {len(vote)} within 1.05."]
    lines += ["", "Over 1.05:", ""] + [f"- seed {row['seed']} {row['dtype']} ({', '.join(map(str, row['shape']))}): "
                                      f"{row['pick_over_best']:.4f}, {short(row['pick'])} against {short(row['best'])}"
                                      for row in worst if row["pick_over_best"] > TARGET_WORST] + [""]
    line = (f"held-out pooled: {'PASS' if s['targets_met'] else 'FAIL'}: {s['measured']} shapes, pick/best geomean "
            f"{f4(s['geomean'])} (<= {TARGET_GEOMEAN}), worst {f4(s['worst'])} (<= {TARGET_WORST}), "
            f"{s['within_1.02']} within 1.02, {s['within_1.05']} within 1.05")
    try:
        write_output(out, "\n".join(lines))
    except OSError as e:
        fail(1, f"cannot write the report: {e}")
    print(line)


def main():
    if sys.argv[1:2] == ["--pool"]:
        if len(sys.argv) < 5 or sys.argv[-2] != "--out":
            fail(2, "usage: held-out.py --pool REPORT.json [REPORT.json ...] --out POOLED.md")
        pool(sys.argv[2:-2], sys.argv[-1])
        return
    a = parse_args(sys.argv[1:])
    command = shlex.join(["lab/bin/held-out"] + sys.argv[1:])
    work = os.path.abspath(a.work or os.path.join(tempfile.gettempdir(), "padtune-held-out", a.backend))
    os.makedirs(work, exist_ok=True)
    drawn = draw_shapes(a.seed, a.count, a.dtypes, a.max_bytes, a.max_rows)
    picks = [explain(a, dtype, shape) for dtype, shape in drawn]  # first: a --table explain refuses costs no tuning
    vote_picks = None
    if a.autotune:  # the vote's picks above; the timed ones replace them, and the vote's are kept beside
        vote_picks, picks = picks, [explain(a, dtype, shape, autotune=True) for dtype, shape in drawn]

    variants, filt = restriction(a.tune_args)
    restricted = " ".join((["--variant " + " ".join(variants)] if variants else [])
                          + ([f"--filter {filt}"] if filt else []))
    tune_commands, expected = [], {}
    for dtype in a.dtypes:
        shapes = [s for d, s in drawn if d == dtype]
        if shapes:
            tune_commands.append(f"(--measured: {os.path.join(work, 'cache.jsonl')})" if a.measured
                                 else tune(a, work, dtype, shapes))
            expected[dtype] = candidates(a.padtune, dtype, variants, filt)

    cache = os.path.join(work, "cache.jsonl")
    with open(cache) as f:
        header = json.loads(f.readline())
    times = read_ok(cache)
    rows, problems = compare(drawn, picks, times, expected, restricted, cache)
    s = summarize(rows, a.dtypes)
    if vote_picks:  # what the vote alone would have run, judged on the same cache
        for r, v in zip(rows, vote_picks):
            t = times.get((r["dtype"], tuple(r["shape"])), {}).get(v["instantiation"])
            r["vote_pick"], r["vote_over_best"] = v["instantiation"], None if t is None else t / r["best_us"]
        vote = [r["vote_over_best"] for r in rows if r["vote_over_best"] is not None]
        s["vote_alone"] = {"measured": len(vote), "geomean": geomean(vote), "worst": max(vote, default=None),
                           "within_1.05": sum(x <= 1.05 for x in vote)}
    s["targets_met"] = s["targets_met"] and not problems
    counts = ", ".join(f"{d} {len(ids)}" for d, ids in expected.items())
    checks = (f"checks FAILED: {len(problems)} problem(s), the first: {problems[0]}" if problems else
              f"checks passed: {len(drawn)} picks measured, best <= pick, every candidate ({counts}"
              f"{'; ' + restricted if restricted else ''}) measured on every shape")
    line = (f"held-out: {'PASS' if s['targets_met'] else 'FAIL'}: {len(drawn)} shapes, pick/best geomean "
            f"{f4(s['geomean'])} (<= {TARGET_GEOMEAN}), worst {f4(s['worst'])} (<= {TARGET_WORST}), "
            f"{s['within_1.02']} within 1.02, {s['within_1.05']} within 1.05; {checks}")

    own_lookup = "the dispatcher's own lookup" + (f" (PADTUNE_RESULTS={os.environ['PADTUNE_RESULTS']})"
                                                  if os.environ.get("PADTUNE_RESULTS") else "")
    report = {"command": command, "seed": a.seed, "count": a.count, "dtypes": a.dtypes, "backend": a.backend,
              "max_bytes": a.max_bytes, "max_rows": a.max_rows,
              "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
              "padtune": os.path.abspath(a.padtune), "device": header.get("device", {}),
              "harness_version": header.get("harness_version"), "kernel_sources": header.get("kernel_sources"),
              "settings": header.get("settings"), "table_asked": table_info(a.table) if a.table else own_lookup,
              "tune_commands": tune_commands, "work": work, "cache": cache, "autotune": a.autotune,
              "candidates": {d: len(ids) for d, ids in expected.items()}, "candidate_restriction": restricted,
              "targets": {"worst": TARGET_WORST, "geomean": TARGET_GEOMEAN}, "summary": s, "problems": problems,
              "line": line, "shapes": rows}
    out = a.out or (os.path.join(ROOT, "results", slug(report["device"])) if a.backend == "cuda"
                    else tempfile.mkdtemp(prefix="padtune-held-out-"))
    try:
        write_output(os.path.join(out, "held-out.json"), json.dumps(report, indent=2, allow_nan=False) + "\n")
        write_output(os.path.join(out, "held-out.md"), markdown(report))
    except OSError as e:
        fail(1, f"cannot write the report: {e}")
    for p in problems:
        print(f"held-out.py: {p}", file=sys.stderr)
    print(f"held-out: {a.backend}, {report['device'].get('name')}; the dispatcher's table: "
          f"{', '.join(sorted({r['table'] for r in rows}))}")
    print(f"held-out: wrote {os.path.join(out, 'held-out.md')} and held-out.json; the tune's cache: {cache}")
    print(line)
    if s.get("vote_alone"):
        v = s["vote_alone"]
        print(f"held-out: the vote alone, no timing: pick/best geomean {f4(v['geomean'])}, worst {f4(v['worst'])}, "
              f"{v['within_1.05']} of {v['measured']} within 1.05")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
