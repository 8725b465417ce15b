#!/usr/bin/env python3
"""Checks for tests/cli/mpi_tune.sh: what an MPI run's cache and table must share with a single
process's, over the host backend, whose timings (and so its winners) are noise. Deterministic:
the set of measured keys, each key measured once, and the table's entries (dtype and problem); each
winner was measured "ok" in the run's own cache.

Usage: mpi_runs.py SINGLE_DIR TEAM_DIR [TEAM_SLUG]: the team's files of device TEAM_SLUG (default
host-emulation) against the single run's host-emulation files."""
import json
import sys


def cache_keys(path):
    with open(path) as f:
        lines = f.read().splitlines()[1:]
    keys = []
    status = {}
    for line in lines:
        m = json.loads(line)
        key = (m["id"], m["dtype"], tuple(m["shape"]))
        keys.append(key)
        status[key] = m["status"]
    return keys, status


def places(path):
    """The table and its entries' places: dtype and problem (rows, L, pads), one entry each."""
    with open(path) as f:
        t = json.load(f)
    return t, [(e["dtype"], e["shape"][0] * e["shape"][1], *e["shape"][2:]) for e in t["entries"]]


def main():
    single, team = sys.argv[1], sys.argv[2]
    name = sys.argv[3] if len(sys.argv) > 3 else "host-emulation"
    single_keys, _ = cache_keys(f"{single}/host-emulation.cache.jsonl")
    team_keys, status = cache_keys(f"{team}/{name}.cache.jsonl")
    problems = []
    if len(team_keys) != len(set(team_keys)):
        problems.append(f"{len(team_keys) - len(set(team_keys))} keys measured twice")
    if set(team_keys) != set(single_keys):
        problems.append(f"measured keys differ: {len(set(single_keys) - set(team_keys))} missing, "
                        f"{len(set(team_keys) - set(single_keys))} extra")
    single_table, single_places = places(f"{single}/host-emulation.json")
    team_table, team_places = places(f"{team}/{name}.json")
    if sorted(team_places) != sorted(single_places):
        problems.append(f"table entries differ: {sorted(set(single_places) ^ set(team_places))}, "
                        f"{len(single_places)} against {len(team_places)}")
    if not team_table["complete"]:
        problems.append("the table is marked partial")
    for e in team_table["entries"]:
        key = (e["winner"]["id"], e["dtype"], tuple(e["shape"]))
        if status.get(key) != "ok":
            problems.append(f"winner {key} is not an ok measurement of the run's cache")
    if problems:
        print(f"FAIL {team}/{name} against {single}: " + "; ".join(problems))
        return 1
    print(f"{team}/{name}: {len(team_keys)} keys, each once, as {single}; {len(team_places)} entries")
    return 0


if __name__ == "__main__":
    sys.exit(main())
