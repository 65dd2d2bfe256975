#!/usr/bin/env python3
"""core_nnls against SciPy: random problems of various shapes (tall, square,
wide), rank-deficient, degenerate (zero columns, duplicated columns, b = 0,
an optimum at x = 0) and with free (unconstrained) columns. scipy.optimize.nnls
is the reference without free columns; lsq_linear (BVLS) with -inf lower bounds
is the reference with them. Passes when the C objective is within a relative
1e-7 of SciPy's (or better), and x matches where the optimum is unique.
Usage: nnls_check.py PATH_TO_nnls_cli"""
import os
import subprocess
import sys

try:
    import numpy as np
    from scipy.optimize import lsq_linear, nnls
except ImportError:
    # pyenv's python3 may shadow Debian's, which has python3-scipy
    if sys.executable != "/usr/bin/python3" and os.path.exists("/usr/bin/python3"):
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    print("SKIP: no SciPy")
    sys.exit(77)


def run_c(cli, a, b, free):
    m, n = a.shape
    text = [f"{m} {n}", " ".join(str(int(f)) for f in free)]
    text += [" ".join(repr(float(v)) for v in row) for row in a]
    text.append(" ".join(repr(float(v)) for v in b))
    out = subprocess.run([cli], input="\n".join(text) + "\n", text=True,
                         capture_output=True, check=True).stdout.split("\n")
    return int(out[0]), np.array([float(v) for v in out[1].split()]), float(out[2])


def reference(a, b, free):
    if not free.any():
        x, _ = nnls(a, b, maxiter=50 * a.shape[1])
    else:
        lb = np.where(free, -np.inf, 0.0)
        x = lsq_linear(a, b, bounds=(lb, np.inf), method="bvls",
                       tol=1e-14, lsmr_tol=None).x
    return x, float(np.sum((a @ x - b) ** 2))


def problems(rng):
    for m, n in [(3000, 40), (200, 10), (50, 50), (20, 35), (5, 1), (1, 3),
                 (100, 2)]:
        for _ in range(4):
            a = rng.poisson(rng.uniform(0.5, 20), size=(m, n)).astype(float)
            w = np.maximum(rng.normal(0, 1, n), 0)
            yield f"counts {m}x{n}", a, a @ w + rng.normal(0, 0.5, m), False
            g = rng.normal(size=(m, n))
            yield f"gaussian {m}x{n}", g, rng.normal(size=m), False
    for m, n, r in [(100, 20, 5), (60, 30, 29), (30, 10, 1)]:
        a = rng.normal(size=(m, r)) @ rng.normal(size=(r, n))
        yield f"rank {r} of {m}x{n}", a, rng.normal(size=m), False
    a = rng.normal(size=(40, 8))
    a[:, 3] = 0.0
    a[:, 5] = a[:, 1]
    yield "zero and duplicate columns", a, rng.normal(size=40), False
    yield "b = 0", rng.normal(size=(30, 6)), np.zeros(30), False
    a = np.abs(rng.normal(size=(30, 6)))
    yield "optimum at 0", a, -np.abs(rng.normal(size=30)), False
    for m, n in [(500, 12), (80, 40), (3000, 40)]:
        a = rng.poisson(5, size=(m, n)).astype(float)
        a[:, 0] = 1.0
        w = np.maximum(rng.normal(0, 1, n), 0)
        w[0] = -3.0
        yield f"intercept {m}x{n}", a, a @ w + rng.normal(0, 0.1, m), True


def main():
    cli = sys.argv[1]
    rng = np.random.default_rng(20261123)
    failures = 0
    count = 0
    for name, a, b, intercept in problems(rng):
        free = np.zeros(a.shape[1], dtype=bool)
        free[0] = intercept
        status, x, obj = run_c(cli, a, b, free)
        xr, objr = reference(a, b, free)
        count += 1
        scale = max(objr, 1e-12 * float(b @ b), 1e-300)
        ok = status == 0 and (x[~free] >= 0).all() and obj <= objr + 1e-7 * scale + 1e-20
        # x is unique when A has full column rank
        full = np.linalg.matrix_rank(a) == a.shape[1]
        if ok and full:
            ok = np.allclose(x, xr, rtol=1e-5, atol=1e-6 * max(1.0, np.abs(xr).max()))
        if not ok:
            failures += 1
            print(f"FAIL {name}: status {status} obj {obj!r} scipy {objr!r} "
                  f"max|dx| {np.abs(x - xr).max():.3g}")
    print(f"{count - failures}/{count} problems agree with SciPy")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
