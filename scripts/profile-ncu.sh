#!/usr/bin/env bash
# Nsight Compute on one launch of one instantiation, found by its NVTX range (domain "padtune",
# named by the id); prints the DRAM bytes read and written against the bytes the contract moves.
# Usage: scripts/profile-ncu.sh ID|dispatch B,C,L,pad_left,pad_right [DTYPE] [-- extra ncu options]
#   ID        an instantiation id (padtune list); its dtype is taken from the id
#   dispatch  what the dispatcher takes for the shape (DTYPE needed, default f32)
# Env: PADTUNE (default build/gpu/tuner/padtune), REPORT (keep the .ncu-rep at this path).
set -euo pipefail
cd "$(dirname "$0")/.."
id=${1:?usage: scripts/profile-ncu.sh ID|dispatch B,C,L,pad_left,pad_right [DTYPE]}
shape=${2:?usage: scripts/profile-ncu.sh ID|dispatch B,C,L,pad_left,pad_right [DTYPE]}
padtune=${PADTUNE:-build/gpu/tuner/padtune}
[[ -x $padtune ]] || { echo "profile-ncu: $padtune not found (build the gpu preset, or set PADTUNE)" >&2; exit 2; }
command -v ncu > /dev/null || { echo "profile-ncu: ncu (Nsight Compute) is not on the PATH" >&2; exit 2; }
IFS=, read -r B C L pl pr <<< "$shape"
[[ -n ${pr:-} ]] || { echo "profile-ncu: the shape must be B,C,L,pad_left,pad_right, got '$shape'" >&2; exit 2; }
if [[ $id == dispatch ]]; then
  dtype=${3:-f32}
  id=$("$padtune" explain --shape "$shape" --dtype "$dtype" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["instantiation"])')
  run_id=()
else
  dtype=$(sed -E 's/^constant_pad1d_backward__([a-z0-9]+)__.*/\1/' <<< "$id")
  run_id=(--id "$id")
fi
case $dtype in f32) es=4 ;; f64) es=8 ;; f16|bf16) es=2 ;; *) echo "profile-ncu: unknown dtype in '$id'" >&2; exit 2 ;; esac
report=${REPORT:-/tmp/padtune-ncu-$$}
# The third run: the first two warm up. ncu flushes the caches before the profiled launch (its
# default --cache-control all), so the bytes are the L2-cold ones; the clocks are left alone.
ncu --clock-control none --nvtx --nvtx-include "padtune@${id}/" --launch-skip 2 --launch-count 1 \
    --metrics dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum \
    --export "$report" --force-overwrite "${@:4}" \
    "$padtune" run "${run_id[@]}" --shape "$shape" --dtype "$dtype" -n 3 > /tmp/padtune-ncu.log 2>&1 \
  || { cat /tmp/padtune-ncu.log >&2; exit 1; }
ncu --import "$report.ncu-rep" --csv --page raw \
    --metrics dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum > /tmp/padtune-ncu.csv
python3 - "$id" "$B" "$C" "$L" "$pl" "$pr" "$es" /tmp/padtune-ncu.csv <<'PY'
import csv, sys
id_, B, C, L, pl, pr, es, path = sys.argv[1], *map(int, sys.argv[2:8]), sys.argv[8]
rows = list(csv.reader(open(path)))
head, units, data = rows[0], rows[1], rows[2:]
if not data:
    sys.exit(f"profile-ncu: no launch inside the NVTX range padtune@{id_}/ was profiled")
def value(name):
    i = head.index(name)
    scale = {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "nsecond": 1e-3, "usecond": 1, "msecond": 1e3}
    return float(data[-1][i].replace(",", "")) * scale.get(units[i], 1)
dx = B * C * L * es
read, write, us = value("dram__bytes_read.sum"), value("dram__bytes_write.sum"), value("gpu__time_duration.sum")
print(f"{id_} on ({B}, {C}, {L}, {pl}, {pr}), kernel {data[-1][head.index('Kernel Name')][:60]}")
print(f"  DRAM read  {read:14.0f} bytes, contract {dx:14d} ({read / dx:.3f}x)")
print(f"  DRAM write {write:14.0f} bytes, contract {dx:14d} ({write / dx:.3f}x)")
print(f"  duration   {us:10.1f} us: {(read + write) / us * 1e-3:.0f} GB/s of DRAM traffic, {2 * dx / us * 1e-3:.0f} GB/s of payload")
PY
echo "report: $report.ncu-rep (ncu-ui, or ncu --import)"
