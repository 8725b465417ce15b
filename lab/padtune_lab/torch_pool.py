#!/usr/bin/env python3
"""Pools several runs of lab/bin/torch-bench, each a process of its own on the same GPU model:

  python3 lab/bin/torch-pool RUN1/torch.json RUN2/torch.json ... --out DIR

writes DIR/torch.json, DIR/torch.md and DIR/torch.png as torch-bench does, where every figure is the
median over the processes of each process's own median (the copy's too, and each ratio is the pooled
median over the pooled copy), and the targets are judged on those. torch.md adds a table per shape of
torch.compile's time over padtune's in each process, and in how many processes padtune was ahead.

Why: on the latency-bound shapes (P8, P9) a kernel's time moves between processes by more than
the gaps between padtune and torch.compile (docs/performance-notes.md, "The whole shape compiled
in"), so one process cannot decide those targets. Runs that differ in what they measure (device,
timer, suite, sample settings, torch or padtune version) or a file given twice are refused (exit 3
and 2); a case a process skipped or could not measure counts only where it was measured, its errors
are kept with the run's name, and a target measured in one process only says so."""
import argparse
import copy
import datetime
import json
import os
import shlex
import statistics
import sys

from padtune_lab import torch_bench as tb  # its targets, tables and plot


class Refused(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


def read_doc(path):
    try:
        with open(path) as f:
            doc = json.load(f)
    except OSError as e:
        raise Refused(3, f"{path}: {e.strerror}")
    except json.JSONDecodeError as e:
        raise Refused(3, f"{path}: not JSON ({e})")
    if not isinstance(doc, dict) or not all(k in doc for k in ("device", "cases", "planned")):
        raise Refused(3, f"{path}: not a torch-bench torch.json (no device, cases or planned)")
    return doc


def median_of(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def spread(values):
    """(max - min) / median, the noise measure of torch-bench's host-time targets."""
    values = [v for v in values if v is not None]
    if len(values) < 2 or not statistics.median(values):
        return None
    return (max(values) - min(values)) / statistics.median(values)


def measured(row):
    return not row.get("skipped") and bool(row.get("copy", {}).get("median_us"))


def pool_timing(parts, copy_us):
    """One method's (or the copy's) figures over the processes that measured it."""
    medians = [p.get("median_us") for p in parts if p and p.get("median_us") is not None]
    if not medians:
        errors = sorted({p.get("error") for p in parts if p and p.get("error")})
        return {"error": "; ".join(errors)} if errors else {}
    out = {"median_us": statistics.median(medians), "n": len(medians),
           "process_medians_us": medians}
    if copy_us:
        out["ratio"] = out["median_us"] / copy_us
    timed = [p for p in parts if p and p.get("median_us") is not None]  # host figures of timed runs only
    for key in ("host_us", "wall_us"):
        m = median_of([p.get(key) for p in timed])
        if m is not None:
            out[key] = m
    s = spread([p.get("wall_us") for p in timed])
    if s is not None:
        out["wall_us_spread"] = max([s] + [p.get("wall_us_spread", 0) for p in timed])
    elif len(timed) == 1:
        out["wall_us_spread"] = timed[0].get("wall_us_spread", 0)
    # a warning of any process stays: the GPU's sleep ended early somewhere, dx was a view somewhere
    busy = [p["gpu_busy_throughout"] for p in timed if "gpu_busy_throughout" in p]
    if busy:
        out["gpu_busy_throughout"] = all(busy)
    if any(p.get("dx_aliases_dy") for p in timed):
        out["dx_aliases_dy"] = True
    return out


def labelled_errors(runs):
    """Every process's errors, each key prefixed with the run's name: none is lost or overwritten."""
    return {f"{name}: {k}": v for name, r in runs for k, v in r.get("errors", {}).items()}


def pool_rows(runs):
    """The fields every pooled row has, from [(run name, row)] of one (tag, shape, dtype)."""
    rows = [r for _, r in runs]
    out = {k: rows[0][k] for k in ("tag", "shape", "dtype", "pitch", "offset") if k in rows[0]}
    ok = [r for r in rows if measured(r)]
    out["processes"] = len(ok)
    out["errors"] = labelled_errors(runs)
    if not ok:
        out["skipped"] = "; ".join(sorted({r.get("skipped", "not measured") for r in rows}))
        return out, ok
    out["copy"] = pool_timing([r["copy"] for r in ok], None)
    return out, ok


def pool_case(runs, names):
    """A case row of torch-bench's shape from the same (tag, shape, dtype) of each process, with the
    per-process figures in the order of the runs given (None where a run has none)."""
    out, ok = pool_rows(runs)
    mine = dict((name, r) for name, r in runs)

    def per_run(f):
        return [f(mine[n]) if n in mine and measured(mine[n]) else None for n in names]

    def over(r):
        c, p = (r["methods"].get(k, {}).get("median_us") for k in ("compile", "padtune"))
        return c / p if c and p else None
    out["compile_over_padtune"] = per_run(over)
    out["copy_us_per_run"] = per_run(lambda r: r["copy"]["median_us"])
    if ok:
        copy_us = out["copy"]["median_us"]
        out["methods"] = {n: pool_timing([r["methods"].get(n) for r in ok], copy_us) for n in tb.METHODS}
    return out


def pool_narrow(runs):
    """A narrowed/channels-last row; vs_contiguous is the pooled median over the pooled contiguous one,
    as torch-bench computes it within a run."""
    out, ok = pool_rows(runs)
    if not ok:
        return out
    for k in tb.NARROW_RUNS:
        out[k] = pool_timing([r.get(k) for r in ok], out["copy"]["median_us"])
    base = out.get("contiguous", {}).get("median_us")
    for k in tb.NARROW_RUNS:
        if base and out[k].get("median_us") is not None:
            out[k]["vs_contiguous"] = round(out[k]["median_us"] / base, 4)
    return out


# what must be the same in every run for their medians to be pooled
SAME = {"device": lambda d: d.get("device"), "timer": lambda d: d.get("timer"),
        "torch": lambda d: d.get("torch"), "padtune": lambda d: d.get("padtune"),
        "suite": lambda d: d.get("planned", {}).get("suite"),
        "settings": lambda d: {k: v for k, v in d.get("settings", {}).items()
                               if k not in ("budget_s", "base_spin_cycles")}}


def check_same(docs, names):
    for what, get in SAME.items():
        values = [json.dumps(get(d), sort_keys=True) for d in docs]
        if len(set(values)) > 1:
            shown = ", ".join(f"{n}: {v}" for n, v in zip(names, values))
            if what == "device":
                shown = ", ".join(sorted({get(d) for d in docs}))
                raise Refused(3, f"the runs are of different devices ({shown}): pool one model's runs")
            raise Refused(3, f"the runs differ in {what} ({shown[:600]}): pool runs of one command and build")


def run_names(paths):
    """Each run's name in tables and errors: its folder, or its path where folders repeat."""
    names = [os.path.basename(os.path.dirname(os.path.abspath(p))) or p for p in paths]
    return names if len(set(names)) == len(names) else list(paths)


def pool(docs, paths):
    names = run_names(paths)
    check_same(docs, names)
    first = docs[0]
    planned = copy.deepcopy(first["planned"])
    planned["dtypes"] = [dt for dt in tb.DTYPES if any(dt in d["planned"].get("dtypes", []) for d in docs)]
    order = list(dict.fromkeys(tag for d in docs for tag in d["planned"].get("suite", {})))  # the suite's order
    planned["shapes"] = [s for s in order if any(s in d["planned"].get("shapes", []) for d in docs)]
    planned["narrow_shapes"] = [s for s in order if any(s in d["planned"].get("narrow_shapes", []) for d in docs)]

    def grouped(kind):
        keys, by = [], {}
        for name, d in zip(names, docs):
            for r in d.get(kind, []):
                k = (r["tag"], tuple(r.get("shape", ())), r["dtype"])
                if k not in by:
                    keys.append(k)
                    by[k] = []
                by[k].append((name, r))
        return keys, by

    keys, by = grouped("cases")
    nkeys, nby = grouped("narrow")
    doc = {"command": command_line(), "argv": sys.argv,
           "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
           "device": first["device"], "torch": first.get("torch", "?"), "padtune": first.get("padtune", "?"),
           "python": first.get("python", "?"),
           "timer": first.get("timer", "?") + f"; pooled: each figure the median over {len(docs)} processes' medians",
           "settings": first.get("settings", {}), "planned": planned,
           "pooled_from": [{"path": p, "command": d.get("command"), "date": d.get("date"), "host": d.get("host"),
                            "torch": d.get("torch"), "padtune": d.get("padtune"), "complete": d.get("complete")}
                           for p, d in zip(paths, docs)],
           "run_names": names,
           "cases": [pool_case(by[k], names) for k in keys], "narrow": [pool_narrow(nby[k]) for k in nkeys],
           "skipped": [f"{n}: {s}" for n, d in zip(names, docs) for s in d.get("skipped", [])],
           "complete": all(d.get("complete") for d in docs),
           "elapsed_s": round(sum(d.get("elapsed_s", 0.0) for d in docs), 1)}
    if not doc["complete"]:
        doc["stopped"] = "a pooled run was incomplete"
    doc["targets"] = tb.targets(doc)
    counts = {(r["tag"], r["dtype"], kind): r["processes"] for kind in ("cases", "narrow") for r in doc[kind]}
    for t in doc["targets"]:
        kind = "narrow" if t["target"].startswith("narrowed") else "cases"
        if counts.get((t["tag"], t["dtype"], kind)) == 1:
            t["detail"] += "; measured in one process only"
    return doc


def per_process_table(doc):
    names = doc["run_names"]
    L = ["## Per process", "",
         f"torch.compile's device time over padtune's in each of the {len(names)} processes (above 1: padtune ahead),",
         "and the copy's median in each, in the order of the runs pooled (" + ", ".join(names) + "); - where a run",
         "has no figure.", "",
         "| shape | dtype | compile / padtune, each process | padtune ahead | copy us, each process |",
         "| --- | --- | --- | --- | --- |"]
    for r in doc["cases"]:
        q = r.get("compile_over_padtune", [])
        got = [x for x in q if x is not None]
        ahead = sum(x > 1.0 for x in got)
        L.append(f"| {r['tag']} {tuple(r['shape'])} | {r['dtype']} | "
                 f"{' '.join('-' if x is None else f'{x:.3f}' for x in q)} | {ahead} of {len(got)} | "
                 f"{' '.join(tb.fmt_us(x) for x in r.get('copy_us_per_run', []))} |")
    L += ["", "Pooled runs:", ""]
    L += [f"- {n}: `{p['path']}`: {p['date']} on {p['host']}, `{p['command']}`"
          for n, p in zip(names, doc["pooled_from"])]
    return "\n".join(L) + "\n"


def markdown(doc):
    title, made_by, rest = tb.markdown(doc).split("\n\n", 2)
    note = (f"Pooled from {len(doc['pooled_from'])} processes (listed at the end): every figure is the median\n"
            "over the processes of each process's own median, the copy's too; a ratio is the pooled median over\n"
            "the pooled copy; n counts processes.")
    return f"{title}\n\n{made_by}\n\n{note}\n\n{rest.rstrip()}\n\n{per_process_table(doc)}"


def command_line():
    script = os.path.relpath(os.path.abspath(sys.argv[0]), os.getcwd())
    return " ".join(["python3", shlex.quote(script), shlex.join(sys.argv[1:])])


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runs", nargs="+", metavar="TORCH_JSON", help="torch.json files of torch-bench runs")
    ap.add_argument("--out", required=True, help="folder for the pooled torch.json, torch.md, torch.png")
    a = ap.parse_args(argv)
    real = [os.path.realpath(p) for p in a.runs]
    if len(a.runs) < 2:
        ap.error("give at least two runs' torch.json")
    if len(set(real)) < len(real):
        ap.error(f"a file is given twice: {', '.join(sorted({p for p in a.runs if real.count(os.path.realpath(p)) > 1}))}")
    try:
        docs = [read_doc(p) for p in a.runs]
        doc = pool(docs, a.runs)
        os.makedirs(a.out, exist_ok=True)
        paths = [os.path.join(a.out, f) for f in ("torch.json", "torch.md", "torch.png")]
        if any(os.path.realpath(p) in real for p in paths):
            raise Refused(2, f"--out {a.out} holds one of the runs pooled: choose another folder")
        tb.write_output(paths[0], json.dumps(doc, indent=1) + "\n")
        tb.write_output(paths[1], markdown(doc))
        made_plot = tb.plot(doc, paths[2], tb.Clock())
    except Refused as e:
        print(f"torch-pool: {e}", file=sys.stderr)
        return e.code
    except OSError as e:
        print(f"torch-pool: {e}", file=sys.stderr)
        return 1
    tb.print_summary(doc, paths[:2] + (paths[2:] if made_plot else []))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
