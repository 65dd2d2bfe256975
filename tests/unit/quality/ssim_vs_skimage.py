#!/usr/bin/env python3
"""baton ssim against scikit-image's structural_similarity on the luma.

Usage: ssim_vs_skimage.py BATON

Writes deterministic image pairs (noise, gradients, blur, shifted copies,
constant images, odd sizes) as PPM/PGM files to a temporary directory, runs
`baton ssim` on each and requires agreement within 1e-4 with
skimage.metrics.structural_similarity(gaussian_weights=True, sigma=1.5,
use_sample_covariance=False, data_range=255) of the BT.601 luma images.
Bad inputs (unreadable, not P5/P6, 16-bit, truncated, under 11x11, sizes
that differ) must exit 2 naming the file. Exits 77 (skipped) if numpy, scipy or scikit-image is missing.
"""
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    from scipy.ndimage import gaussian_filter
    from skimage.metrics import structural_similarity
except ImportError as e:
    print(f"skipping: {e}")
    sys.exit(77)

TOL = 1e-4


def write_pnm(path, img):
    img = np.ascontiguousarray(img, dtype=np.uint8)
    magic = b"P6" if img.ndim == 3 else b"P5"
    h, w = img.shape[:2]
    with open(path, "wb") as f:
        f.write(magic + b"\n# baton test\n%d %d\n255\n" % (w, h))
        f.write(img.tobytes())


def luma(img):
    img = img.astype(np.float64)
    if img.ndim == 2:
        return img
    return 0.299 * img[..., 0] + 0.587 * img[..., 1] + 0.114 * img[..., 2]


def reference(a, b):
    return structural_similarity(luma(a), luma(b), gaussian_weights=True,
                                 sigma=1.5, use_sample_covariance=False,
                                 data_range=255)


def clip8(x):
    return np.clip(np.rint(x), 0, 255).astype(np.uint8)


def pairs():
    rng = np.random.default_rng(20041)
    for h, w in [(23, 37), (360, 640), (11, 11), (12, 40), (64, 13)]:
        noise = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
        other = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
        yield f"noise-vs-noise {w}x{h}", noise, other
        noisy = clip8(noise + rng.normal(0, 12, noise.shape))
        yield f"noise-vs-noisier {w}x{h}", noise, noisy
        yy, xx = np.mgrid[0:h, 0:w]
        grad = np.stack([255 * xx / max(w - 1, 1), 255 * yy / max(h - 1, 1),
                         128 + 0 * xx], axis=-1)
        grad = clip8(grad)
        blur = clip8(gaussian_filter(grad.astype(float), (2, 2, 0)))
        yield f"gradient-vs-blur {w}x{h}", grad, blur
        tex = clip8(128 + 100 * np.sin(xx / 3.0)[..., None] *
                    np.cos(yy / 5.0)[..., None] + 0 * grad)
        yield f"texture-vs-shift {w}x{h}", tex, np.roll(tex, 1, axis=1)
        yield f"texture-vs-blur {w}x{h}", tex, clip8(
            gaussian_filter(tex.astype(float), (1.2, 1.2, 0)))
        yield f"identical {w}x{h}", noise, noise.copy()
        yield f"grey noise {w}x{h}", noise[..., 0], noisy[..., 1]
    for v, u in [(0, 0), (255, 255), (0, 255), (100, 101), (255, 254)]:
        a = np.full((30, 41, 3), v, np.uint8)
        b = np.full((30, 41, 3), u, np.uint8)
        yield f"constant {v} vs {u}", a, b
    a = rng.integers(0, 256, (1080, 1920, 3), dtype=np.uint8)
    a = clip8(gaussian_filter(a.astype(float), (3, 3, 0)) * 2 - 128)
    b = clip8(a + rng.normal(0, 4, a.shape))
    yield "smooth noise 1920x1080", a, b


def bad_inputs(baton, tmp):
    """Each bad input exits 2 and names the offending file."""
    good = os.path.join(tmp, "good.ppm")
    write_pnm(good, np.zeros((20, 20, 3), np.uint8))
    cases = {
        "missing.ppm": None,
        "text.ppm": b"P3\n20 20\n255\n0 0 0\n",
        "deep.ppm": b"P6\n20 20\n65535\n" + bytes(20 * 20 * 6),
        "short.ppm": b"P6\n20 20\n255\n" + bytes(100),
        "header.ppm": b"P6\n20 x\n255\n",
        "tiny.ppm": b"P6\n10 20\n255\n" + bytes(10 * 20 * 3),
        "other.ppm": b"P6\n21 20\n255\n" + bytes(21 * 20 * 3),
    }
    failures = 0
    for name, data in cases.items():
        path = os.path.join(tmp, name)
        if data is not None:
            with open(path, "wb") as f:
                f.write(data)
        for args in ([good, path], [path, good]):
            out = subprocess.run([baton, "ssim"] + args, capture_output=True,
                                 text=True)
            ok = out.returncode == 2 and name in out.stderr
            failures += not ok
            print(f"{'ok  ' if ok else 'FAIL'} bad input {name}: rc "
                  f"{out.returncode}: {out.stderr.strip()}")
    tiny = os.path.join(tmp, "tiny.ppm")
    out = subprocess.run([baton, "ssim", tiny, tiny], capture_output=True,
                         text=True)
    ok = out.returncode == 2 and "tiny.ppm: image smaller" in out.stderr
    print(f"{'ok  ' if ok else 'FAIL'} tiny vs tiny: {out.stderr.strip()}")
    return failures + (not ok)


def main():
    baton = sys.argv[1]
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        failures += bad_inputs(baton, tmp)
        for i, (name, a, b) in enumerate(pairs()):
            ext = "ppm" if a.ndim == 3 else "pgm"
            pa = os.path.join(tmp, f"{i}a.{ext}")
            pb = os.path.join(tmp, f"{i}b.{ext}")
            write_pnm(pa, a)
            write_pnm(pb, b)
            out = subprocess.run([baton, "ssim", pa, pb], capture_output=True,
                                 text=True)
            want = reference(a, b)
            if out.returncode != 0:
                print(f"FAIL {name}: rc {out.returncode}: {out.stderr}")
                failures += 1
                continue
            got = float(out.stdout)
            ok = abs(got - want) <= TOL
            failures += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {name}: baton {got:.9f} "
                  f"skimage {want:.9f} diff {got - want:+.2e}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
