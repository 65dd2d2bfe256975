#!/usr/bin/python3
"""Draws bench/dynamic.py's results: per-tenant FPS over time, one panel
per limiter, the SLA as a line, and the simulator's prediction dashed
where there is one.

    bench/dynamic_plot.py RESULTS.json OUT.svg

Needs matplotlib (Debian: python3-matplotlib, for /usr/bin/python3)."""

import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

# Above this the panel is cut: an unmanaged vkcube runs at hundreds of
# FPS and would flatten everything that matters around the SLA.
Y_MAX = 130


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        res = json.load(f)
    runs, sla = res["runs"], res["sla"]
    names = [t["name"] for t in res["tenants"]]
    colors = dict(zip(names, plt.rcParams["axes.prop_cycle"].by_key()
                      ["color"]))
    fig, axes = plt.subplots(len(runs), 1, sharex=True,
                             figsize=(9, 1.9 * len(runs) + 0.6),
                             squeeze=False)
    for ax, run in zip(axes[:, 0], runs):
        for n in names:
            w = run["tenants"][n]["windows"]
            if w:
                ax.step([s for s, _ in w] + [w[-1][0] + 1],
                        [f for _, f in w] + [w[-1][1]], where="post",
                        color=colors[n], lw=1.2, label=n)
            sim = run.get("sim", {}).get(n)
            if sim and sim["windows"]:
                sw = sim["windows"]
                ax.step([s for s, _ in sw] + [sw[-1][0] + 1],
                        [f for _, f in sw] + [sw[-1][1]], where="post",
                        color=colors[n], lw=0.8, ls=":")
        ax.axhline(sla, color="k", lw=0.8, ls="--")
        ax.set_ylim(0, Y_MAX)
        ax.set_ylabel("FPS")
        ax.set_title("%s: worst tenant %d s under the SLA, CPU busy %.0f%%"
                     % (run["describe"], run["worst_below_s"],
                        run["busy"] * 100), fontsize=9, loc="left")
        ax.grid(alpha=0.3)
    axes[0, 0].legend(ncol=len(names), fontsize=8, loc="upper right")
    axes[-1, 0].set_xlabel("s (dotted: the simulator, costs measured solo "
                           "in the same run; dashed: SLA %g)" % sla)
    fig.tight_layout()
    fig.savefig(sys.argv[2])


if __name__ == "__main__":
    main()
