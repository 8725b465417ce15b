#!/usr/bin/env python3
"""Pools several runs of scripts/torch-bench.py, each a process of its own on the same GPU model:

  python3 scripts/torch-pool.py RUN1/torch.json RUN2/torch.json ... --out DIR

writes DIR/torch.json, DIR/torch.md and DIR/torch.png as torch-bench does, where every figure is the
median over the processes of each process's own median (the copy's too, and each ratio is the pooled
median over the pooled copy), and the targets are judged on those. torch.md adds a table per shape of
torch.compile's time over padtune's in each process, and in how many processes padtune was ahead.

Why: on the latency-bound shapes (P8, P9) a kernel's time moves between processes by more than
the gaps between padtune and torch.compile (docs/performance-notes.md, "The whole shape compiled
in"), so one process cannot decide those targets. Runs of other devices, or a file given twice,
are refused; a case a process skipped or could not measure counts only where it was measured."""
import argparse
import copy
import datetime
import importlib.util
import json
import os
import shlex
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def load_bench():
    """torch-bench.py as a module (its name has a dash): its targets, tables and plot."""
    spec = importlib.util.spec_from_file_location("torch_bench", os.path.join(HERE, "torch-bench.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


tb = load_bench()


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
    for key in ("host_us", "wall_us"):
        values = [p.get(key) for p in parts if p]
        if median_of(values) is not None:
            out[key] = median_of(values)
    s = spread([p.get("wall_us") for p in parts if p])
    if s is not None:
        out["wall_us_spread"] = max([s] + [p.get("wall_us_spread", 0) for p in parts if p])
    elif len(medians) == 1:
        out["wall_us_spread"] = next(p for p in parts if p and p.get("median_us") is not None).get("wall_us_spread", 0)
    return out


def pool_case(rows):
    """A case row of torch-bench's shape from the same (tag, dtype) of each process."""
    ok = [r for r in rows if measured(r)]
    out = {k: rows[0][k] for k in ("tag", "shape", "dtype") if k in rows[0]}
    out["processes"] = len(ok)
    if not ok:
        out["skipped"] = "; ".join(sorted({r.get("skipped", "not measured") for r in rows}))
        out["errors"] = {}
        return out
    out["errors"] = {k: v for r in ok for k, v in r.get("errors", {}).items()}
    out["copy"] = pool_timing([r["copy"] for r in ok], None)
    copy_us = out["copy"]["median_us"]
    out["methods"] = {n: pool_timing([r["methods"].get(n) for r in ok], copy_us) for n in tb.METHODS}
    out["compile_over_padtune"] = [
        r["methods"]["compile"]["median_us"] / r["methods"]["padtune"]["median_us"] for r in ok
        if r["methods"].get("compile", {}).get("median_us") and r["methods"].get("padtune", {}).get("median_us")]
    return out


def pool_narrow(rows):
    ok = [r for r in rows if measured(r)]
    out = {k: rows[0][k] for k in ("tag", "shape", "dtype", "pitch", "offset") if k in rows[0]}
    out["processes"] = len(ok)
    if not ok:
        out["skipped"] = "; ".join(sorted({r.get("skipped", "not measured") for r in rows}))
        out["errors"] = {}
        return out
    out["errors"] = {k: v for r in ok for k, v in r.get("errors", {}).items()}
    out["copy"] = pool_timing([r["copy"] for r in ok], None)
    for k in tb.NARROW_RUNS:
        out[k] = pool_timing([r.get(k) for r in ok], out["copy"]["median_us"])
        q = median_of([r.get(k, {}).get("vs_contiguous") for r in ok])
        if q is not None:
            out[k]["vs_contiguous"] = q
    return out


def pool(docs, paths):
    devices = sorted({d["device"] for d in docs})
    if len(devices) > 1:
        raise Refused(3, f"the runs are of different devices ({', '.join(devices)}): pool one model's runs")
    first = docs[0]
    planned = copy.deepcopy(first["planned"])
    planned["dtypes"] = [dt for dt in tb.DTYPES if any(dt in d["planned"].get("dtypes", []) for d in docs)]
    planned["shapes"] = [s for s in tb.SUITE if any(s in d["planned"].get("shapes", []) for d in docs)]
    planned["narrow_shapes"] = [s for s in tb.SUITE if any(s in d["planned"].get("narrow_shapes", []) for d in docs)]

    def grouped(kind):
        keys, by = [], {}
        for d in docs:
            for r in d.get(kind, []):
                k = (r["tag"], r["dtype"])
                if k not in by:
                    keys.append(k)
                    by[k] = []
                by[k].append(r)
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
           "cases": [pool_case(by[k]) for k in keys], "narrow": [pool_narrow(nby[k]) for k in nkeys],
           "skipped": [f"{os.path.basename(os.path.dirname(os.path.abspath(p))) or p}: {s}"
                       for p, d in zip(paths, docs) for s in d.get("skipped", [])],
           "complete": all(d.get("complete") for d in docs),
           "elapsed_s": round(sum(d.get("elapsed_s", 0.0) for d in docs), 1)}
    if not doc["complete"]:
        doc["stopped"] = "a pooled run was incomplete"
    doc["targets"] = tb.targets(doc)
    return doc


def per_process_table(doc):
    n = len(doc["pooled_from"])
    L = ["## Per process", "",
         f"torch.compile's device time over padtune's in each of the {n} processes (above 1: padtune ahead), in",
         "the order of the files pooled, and the copy's median in each.", "",
         "| shape | dtype | compile / padtune, each process | padtune ahead | copy us, each process |",
         "| --- | --- | --- | --- | --- |"]
    for r in doc["cases"]:
        if r.get("skipped"):
            continue
        q = r.get("compile_over_padtune", [])
        ahead = sum(x > 1.0 for x in q)
        L.append(f"| {r['tag']} {tuple(r['shape'])} | {r['dtype']} | {' '.join(f'{x:.3f}' for x in q)} | "
                 f"{ahead} of {len(q)} | {' '.join(tb.fmt_us(x) for x in r['copy']['process_medians_us'])} |")
    L += ["", "Pooled runs:", ""]
    L += [f"- `{p['path']}`: {p['date']} on {p['host']}, `{p['command']}`" for p in doc["pooled_from"]]
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
