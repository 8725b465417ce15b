#!/usr/bin/env python3
"""Draws padtune's pictures from its results JSON (matplotlib):
  <out>/peers-gbps.png     achieved GB/s per shape of the performance suite, per dtype, as a fraction
                           of the memcpy floor's (written under each shape): the dispatcher and the
                           peers (from peers.json, compare-peers.py)
  <out>/table-heatmap.png  the tuned table: for each dtype and row alignment, the winning variant per
                           bucket (row length x row count, both log2), with its BLOCK_OL

  lab/bin/plot --peers results/nvidia-h200/peers.json --table results/nvidia-h200.json --out results/nvidia-h200"""
import argparse
import io
import json
import os
import re
import sys

from padtune_lab.output_file import write_output

DTYPES = ["f32", "f64", "f16", "bf16"]
from padtune_lab.dtypes import SIZE
SERIES = [("floor (cudaMemcpyAsync)", None), ("padtune (dispatcher)", "dispatcher"),
          ("PyTorch constant_pad_nd", "torch_constant_pad_nd"), ("PyTorch autograd", "torch_autograd_pad_backward"),
          ("Triton", "triton"), ("cudaMemcpy2D", "memcpy2d")]


def median_us(row, key):
    if key is None:  # padtune_bench's floor of the same run
        return row.get("dispatcher", {}).get("floor_us")
    return (row.get(key) or row.get("peers", {}).get(key) or {}).get("median_us")


def plot_peers(plt, peers_path, out):
    """Bars: each one's GB/s as a fraction of the floor's GB/s (1 = as fast as cudaMemcpyAsync);
    the floor's own GB/s is written under each shape, so both scales can be read."""
    doc = json.load(open(peers_path))
    fig, axes = plt.subplots(2, 2, figsize=(16, 9), sharey=True)
    for ax, dt in zip(axes.flat, DTYPES):
        rows = [r for r in doc["rows"] if r["dtype"] == dt]
        if not rows:
            ax.set_visible(False)
            continue
        width = 0.8 / len(SERIES)
        for k, (label, key) in enumerate(SERIES):
            values = []
            for r in rows:
                us, floor = median_us(r, key), median_us(r, None)
                values.append(floor / us if us and floor else 0)
            ax.bar([i + (k - len(SERIES) / 2 + 0.5) * width for i in range(len(rows))], values, width, label=label)
        ticks = []
        for r in rows:
            B, C, L, pl, pr = r["shape"]
            floor = median_us(r, None)
            gbps = 2 * B * C * L * SIZE[dt] / floor * 1e-3 if floor else 0
            ticks.append(f"{r['tag']}\n{gbps:.0f} GB/s" if gbps >= 10 else f"{r['tag']}\n{gbps:.2g} GB/s")
        ax.set_xticks(range(len(rows)), ticks, fontsize=7)
        ax.set_ylim(0, 1.15)
        ax.axhline(1.0, color="black", linewidth=0.6)
        ax.set_title(dt)
        ax.grid(axis="y", alpha=0.3)
    for ax in axes[:, 0]:
        ax.set_ylabel("achieved GB/s / floor's GB/s")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(SERIES), fontsize=8)
    fig.suptitle(f"ConstantPad1dBackward on {doc.get('context', {}).get('device', '?')}: L2-cold medians, "
                 "GB/s as a fraction of a device-to-device memcpy of the same payload (under each shape); "
                 "higher is better", fontsize=10)
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    path = os.path.join(out, "peers-gbps.png")
    save_png(fig, path)
    print("wrote", path)


def plot_table(plt, table_path, out):
    from matplotlib.colors import ListedColormap
    doc = json.load(open(table_path))
    # The variants are the winners' (an id reads constant_pad1d_backward__DTYPE__VARIANT__boN__...):
    # no list of them here.
    winners = {}
    for e in doc["entries"]:
        m = re.fullmatch(r"l(\d+)_r(\d+)_a(\d+)", e["bucket"])
        vm = re.search(r"__(?:f32|f64|f16|bf16)__([a-z][a-z0-9_]*)__bo(\d+)__", e["winner"]["id"])
        if m and vm:
            # a bucket may hold several measured shapes: its first entry (the smallest shape) is drawn
            winners.setdefault((e["dtype"], int(m[3]), int(m[1]), int(m[2])), (vm[1], vm[2]))
    VARIANTS = sorted({v for v, _ in winners.values()})
    cells = {k: (VARIANTS.index(v), bo) for k, (v, bo) in winners.items()}
    # The sweep has a misaligned and a 16-byte-aligned case per dtype: one column each.
    aligns = {dt: sorted({k[1] for k in cells if k[0] == dt}) for dt in DTYPES}
    columns = max(len(v) for v in aligns.values())
    Ls = sorted({k[2] for k in cells})
    Rs = sorted({k[3] for k in cells})
    fig, axes = plt.subplots(len(DTYPES), columns, figsize=(5 * columns, 3.2 * len(DTYPES)), squeeze=False)
    cmap = ListedColormap([plt.get_cmap("tab10")(k % 10) for k in range(len(VARIANTS))])
    for i, dt in enumerate(DTYPES):
        for j in range(columns):
            ax = axes[i][j]
            if j >= len(aligns[dt]):
                ax.set_visible(False)
                continue
            a = aligns[dt][j]
            grid = [[cells.get((dt, a, l, r), (float("nan"), ""))[0] for l in Ls] for r in Rs]
            ax.imshow(grid, cmap=cmap, vmin=-0.5, vmax=len(VARIANTS) - 0.5, origin="lower", aspect="auto")
            for y, r in enumerate(Rs):
                for x, l in enumerate(Ls):
                    if (dt, a, l, r) in cells:
                        ax.text(x, y, cells[(dt, a, l, r)][1], ha="center", va="center", fontsize=5)
            ax.set_xticks(range(len(Ls)), Ls, fontsize=6)
            ax.set_yticks(range(len(Rs)), Rs, fontsize=6)
            ax.set_title(f"{dt}, rows aligned to {a} B", fontsize=8)
            if i == len(DTYPES) - 1:
                ax.set_xlabel("log2 L", fontsize=7)
            if j == 0:
                ax.set_ylabel("log2 rows", fontsize=7)
    handles = [plt.Rectangle((0, 0), 1, 1, color=cmap(k)) for k in range(len(VARIANTS))]
    fig.legend(handles, VARIANTS, loc="lower center", ncol=len(VARIANTS))
    fig.suptitle(f"Tuned table for {doc['device']['name']}: the winning variant per bucket (text: BLOCK_OL)")
    fig.tight_layout(rect=(0, 0.03, 1, 0.97))
    path = os.path.join(out, "table-heatmap.png")
    save_png(fig, path)
    print("wrote", path)


def save_png(fig, path):
    png = io.BytesIO()
    fig.savefig(png, format="png", dpi=110)
    write_output(path, png.getvalue())


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--peers", help="peers.json from lab/bin/compare-peers")
    ap.add_argument("--table", help="a tuned table, results/<gpu>.json")
    ap.add_argument("--out", required=True, help="folder for the PNG files")
    a = ap.parse_args()
    if not a.peers and not a.table:
        ap.error("give --peers, --table or both")
    try:
        import matplotlib
    except ImportError:
        sys.exit("plot: matplotlib is missing (Debian: apt-get install python3-matplotlib)")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    os.makedirs(a.out, exist_ok=True)
    if a.peers:
        plot_peers(plt, a.peers, a.out)
    if a.table:
        plot_table(plt, a.table, a.out)


if __name__ == "__main__":
    main()
