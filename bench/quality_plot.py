#!/usr/bin/python3
"""Draws bench/quality_real.py's results: one column per configuration
(the lever, all-hi, all-me, all-lo); top, each arena instance's frame
rate per second against the SLA; bottom, the level it drew at, with each
join marked.

    bench/quality_plot.py OUT.svg RESULTS.json

Needs matplotlib (Debian: python3-matplotlib, for /usr/bin/python3)."""

import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

NAMES = ["low", "medium", "high"]


def draw(fps_ax, lv_ax, r):
    cycle = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    pids = []
    for s in r["samples"]:
        for t in s["tenants"]:
            if t["pid"] not in pids:
                pids.append(t["pid"])
    for i, pid in enumerate(pids):
        pts = [(s["t"], t) for s in r["samples"] for t in s["tenants"]
               if t["pid"] == pid]
        c = cycle[i % len(cycle)]
        fps_ax.plot([p[0] for p in pts], [p[1]["fps"] for p in pts], lw=0.8,
                    color=c, label="instance %d" % (i + 1))
        lv = [(p[0], p[1]["level"]) for p in pts if p[1]["level"] is not None]
        lv_ax.step([p[0] for p in lv], [p[1] + 0.06 * (i - 2.5) for p in lv],
                   where="post", lw=0.8, color=c)
    for ax in (fps_ax, lv_ax):
        for j in r["joins"]:
            ax.axvline(j, color="#bbbbbb", lw=0.6)
    fps_ax.axhline(r["sla"], color="k", ls="--", lw=0.8, label="SLA")
    fps_ax.set_ylim(0, r["sla"] * 1.3)
    fps_ax.set_ylabel("FPS (1-s windows)")
    held = r.get("density", 0)
    fps_ax.set_title("%s: %d held, mean SSIM %s" % (
        r["config"], held, "-" if r.get("ssim") is None else
        "%.3f" % r["ssim"]), fontsize=9)
    fps_ax.legend(fontsize=6, loc="lower left")
    lv_ax.set_yticks([0, 1, 2])
    lv_ax.set_yticklabels(NAMES)
    lv_ax.set_ylim(-0.4, 2.4)
    lv_ax.set_ylabel("level")
    lv_ax.set_xlabel("s")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[2]) as f:
        results = json.load(f)
    fig, axes = plt.subplots(2, len(results), figsize=(4.5 * len(results), 5),
                             squeeze=False, sharex="col",
                             gridspec_kw={"height_ratios": [2, 1]})
    for i, r in enumerate(results):
        draw(axes[0][i], axes[1][i], r)
    fig.tight_layout()
    fig.savefig(sys.argv[1])


if __name__ == "__main__":
    main()
