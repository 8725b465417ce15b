#!/usr/bin/env python3
"""Lengthens a tuned table's `ranked` lists to what `padtune tune` writes today, from its own cache.

An entry ranks its winner, then the next candidates of the tuner's ranking (every candidate's cache
median over the best at the entry's shape) with their time over the winner's. `padtune merge CACHE`
ranks from the same cache the same way, but selects without the tune's side-by-side re-timing of
finalists, so its winners may differ: it is used only for the ranking. For each entry of TABLE the
merged entry of the same dtype, bucket and shape gives the order and the times; the entry keeps its
winner, and the list is rebuilt from them. Where the rebuilt list does not start with the entry's
own list (ids and ratios within 1e-9), the entry keeps its list and is counted: nothing is guessed.

    build/ci/tuner/padtune merge results/GPU.cache.jsonl -o /tmp/merged.json
    python3 lab/experiments/dispatch-study/extend_ranked.py results/GPU.json /tmp/merged.json 16
"""
import json
import sys


def key(e):
    return (e["dtype"], e["bucket"], bool(e.get("exact", False)), tuple(e["shape"]))


def rebuilt(entry, merged, limit):
    """The entry's list from the merged entry's ranking, or None where the two disagree."""
    base = {c["id"]: c["ratio"] for c in merged["ranked"]}  # time over the merged winner's
    w = entry["winner"]["id"]
    if w not in base:
        return None
    out = [{"id": w, "ratio": 1.0}]
    for c in merged["ranked"]:
        if c["id"] != w and len(out) < limit:
            out.append({"id": c["id"], "ratio": max(1.0, c["ratio"] / base[w])})
    own = entry["ranked"]
    if len(own) > len(out) or any(a["id"] != b["id"] or abs(a["ratio"] - b["ratio"]) > 1e-9 for a, b in zip(own, out)):
        return None
    return out


def main():
    table_path, merged_path, limit = sys.argv[1], sys.argv[2], int(sys.argv[3])
    table = json.load(open(table_path))
    merged = {key(e): e for e in json.load(open(merged_path))["entries"]}
    kept = 0
    for e in table["entries"]:
        m = merged.get(key(e))
        new = rebuilt(e, m, limit) if m and e.get("ranked") else None
        if new is None:
            kept += 1
        else:
            e["ranked"] = new
    with open(table_path, "w") as f:
        json.dump(table, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"{table_path}: {len(table['entries']) - kept} entries rank up to {limit}; {kept} kept their list "
          "(no merged entry at their shape, or its ranking does not start with theirs)")


if __name__ == "__main__":
    main()
