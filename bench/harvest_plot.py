#!/usr/bin/python3
"""Draws bench/harvest_real.py's results over time: per run (one column
each, e.g. --align on and off), the games' frame rate per second against
the SLA (top) and the best-effort work's rows/s (bottom), with each
phase shaded and named, and its frame p99 against games alone.

    bench/harvest_plot.py OUT.svg RESULTS.json [RESULTS.json ...]

Needs matplotlib (Debian: python3-matplotlib, for /usr/bin/python3)."""

import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

SLA = 30.0
SHADE = {"alone": "#ffffff", "naive": "#f4cccc", "sdk": "#d9ead3",
         "gate": "#cfe2f3", "be-sdk": "#fff2cc", "be-naive": "#ead1dc"}


def draw(fps_ax, be_ax, res, title):
    phases = res["phases"]
    t0 = phases[0]["lo"]
    cycle = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    names = sorted({n for p in phases for n in p.get("games", {})})
    color = {n: cycle[i % len(cycle)] for i, n in enumerate(names)}
    for p in phases:
        for ax in (fps_ax, be_ax):
            ax.axvspan(p["lo"] - t0, p["hi"] - t0,
                       color=SHADE.get(p["name"], "#eeeeee"), lw=0)
        label = p["name"]
        ratios = [g["p99_ratio"] for g in p.get("games", {}).values()
                  if "p99_ratio" in g]
        if ratios and p["name"] != "alone":
            label += "\np99 x%.2f-%.2f" % (min(ratios), max(ratios))
        fps_ax.text((p["lo"] + p["hi"]) / 2 - t0, SLA * 0.72, label,
                    ha="center", fontsize=7)
        for name, g in p.get("games", {}).items():
            xs = [p["lo"] - t0 + i + 0.5 for i in range(len(g["windows"]))]
            fps_ax.plot(xs, g["windows"], ".-", ms=3, lw=0.8,
                        color=color[name],
                        label=name if p is phases[0] else None)
    fps_ax.axhline(SLA, color="k", ls="--", lw=0.8, label="SLA")
    fps_ax.set_ylim(SLA * 0.7, SLA * 1.2)
    fps_ax.set_ylabel("game FPS (1-s windows)")
    fps_ax.set_title(title, fontsize=9)
    fps_ax.legend(fontsize=7, loc="lower right")
    for name, pts in res["progress"].items():
        # one line per phase that ran BE, all in one colour
        xs, ys = [], []
        for (ta, ra), (tb, rb) in zip(pts, pts[1:]):
            if tb > ta:
                xs.append((ta + tb) / 2 - t0)
                ys.append((rb - ra) / (tb - ta))
        be_ax.plot(xs, ys, lw=0.8, color="k")
    be_ax.set_ylabel("BE rows/s")
    be_ax.set_xlabel("s")
    be_ax.set_ylim(bottom=0)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    runs = []
    for path in sys.argv[2:]:
        with open(path) as f:
            runs.append(json.load(f))
    fig, axes = plt.subplots(2, len(runs), figsize=(7 * len(runs), 6),
                             squeeze=False, sharex="col")
    for i, res in enumerate(runs):
        r = res["result"]
        title = "align %s, steer %s: harvest SDK %.1f %%, gate %s" % (
            res.get("align", "on"), res.get("steer", "off"),
            100 * r.get("harvest_sdk", 0),
            "%.1f %%" % (100 * r["harvest_gate"]) if "harvest_gate" in r
            else "-")
        draw(axes[0][i], axes[1][i], res, title)
    fig.tight_layout()
    fig.savefig(sys.argv[1])


if __name__ == "__main__":
    main()
