/* SSIM after Wang et al. 2004 (see ssim.h), streamed over rows.
 *
 * Five planes are filtered: the two lumas, their squares and their product
 * (Eqs. 14-16 with the Gaussian weights of Sec. III-C). The horizontal pass
 * of each source row goes into a ring of CORE_SSIM_WIN rows; the vertical
 * pass of output row y reads the ring's rows y-5..y+5 (reflected at the
 * image's top and bottom, which always lie within 11 consecutive source
 * rows once the image is at least 11 rows tall), so the working set is
 * 11 * 5 rows, whatever the height.
 *
 * The luma is shifted by SHIFT before the squares: sigma^2 = E[(x-s)^2] -
 * (E[x]-s)^2 holds for any s, and a centred s quarters the magnitude the
 * subtraction cancels, so the variances' absolute error stays far under
 * C2 = (K2 L)^2 = 58.5 (the SSIM of flat regions hinges on it). The map
 * handed back is float; the arithmetic is double (see `real`). */
#include "core/ssim.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

/* Double: in float the variances' rounding (squares near 16384, ulp 2e-3,
 * over 22 taps) is about 1e-4 of C2, which put the SSIM of flat 27-vs-26
 * images 1.3e-4 off scikit-image's; in double it is 3e-8 off. */
typedef double real;

#define RADIUS  CORE_SSIM_CROP
#define PLANES  5 /* x, y, x^2, y^2, xy */
#define SIGMA   1.5
#define SHIFT   128.0
#define K1      0.01
#define K2      0.03
#define L_RANGE 255.0

/* Reals of workspace: the ring, the padded rows, the vertical result and
 * one SSIM row (the mean sums it in double before any float map). */
static size_t workspace_reals(size_t width)
{
	return (size_t)CORE_SSIM_WIN * PLANES * width +
	       PLANES * (width + 2 * RADIUS) + PLANES * width + width;
}

size_t core_ssim_workspace_size(size_t width, size_t height)
{
	(void)height; /* the ring makes the height irrelevant */
	size_t per_col = (size_t)CORE_SSIM_WIN * PLANES + 2 * PLANES + 1;
	if (width > (SIZE_MAX / sizeof(real) - 2 * RADIUS * PLANES) / per_col)
		return 0;
	return workspace_reals(width) * sizeof(real);
}

const char *core_ssim_status_str(enum core_ssim_status s)
{
	switch (s) {
	case CORE_SSIM_OK:
		return "ok";
	case CORE_SSIM_SIZE_MISMATCH:
		return "images differ in size";
	case CORE_SSIM_TOO_SMALL:
		return "image smaller than the 11x11 SSIM window";
	case CORE_SSIM_BAD_IMAGE:
		return "bad image (channels not 1, 3 or 4, short stride or no "
		       "pixels)";
	case CORE_SSIM_WORKSPACE:
		return "workspace missing, too small or misaligned";
	}
	return "unknown SSIM status";
}

/* The Gaussian's taps 0..RADIUS (symmetric), normalised over all 2R+1 in
 * double as scipy.ndimage does. */
static void gaussian_taps(real g[RADIUS + 1])
{
	double w[RADIUS + 1], sum = 0.0;
	for (int k = 0; k <= RADIUS; k++) {
		w[k] = exp(-0.5 * k * k / (SIGMA * SIGMA));
		sum += k == 0 ? w[k] : 2.0 * w[k];
	}
	for (int k = 0; k <= RADIUS; k++)
		g[k] = (real)(w[k] / sum);
}

static bool image_ok(const struct core_ssim_image *im)
{
	if (!im || !im->pixels)
		return false;
	if (im->channels != 1 && im->channels != 3 && im->channels != 4)
		return false;
	if (im->width > SIZE_MAX / im->channels)
		return false;
	return im->stride >= im->width * im->channels;
}

/* BT.601's terms per 8-bit value, so a pixel's luma is three loads and
 * two adds (converting bytes to double was a sixth of the time); the sums
 * are the same doubles as 0.299 R + 0.587 G + 0.114 B. */
struct luma_lut {
	real r[256], g[256], b[256];
};

static void luma_lut_init(struct luma_lut *t)
{
	for (int v = 0; v < 256; v++) {
		t->r[v] = 0.299 * v;
		t->g[v] = 0.587 * v;
		t->b[v] = 0.114 * v;
	}
}

/* BT.601 luma of one row, minus SHIFT, into out[0..width). */
static void luma_row(const struct core_ssim_image *im, const struct luma_lut *t,
                     size_t row, real *out)
{
	const unsigned char *p = im->pixels + row * im->stride;
	size_t w = im->width;
	unsigned c = im->channels;
	if (c == 1) {
		for (size_t x = 0; x < w; x++)
			out[x] = (real)p[x] - SHIFT;
		return;
	}
	for (size_t x = 0; x < w; x++, p += c)
		out[x] = t->r[p[0]] + t->g[p[1]] + t->b[p[2]] - SHIFT;
}

/* Half-sample symmetric padding: column -1-i mirrors i, w+i mirrors w-1-i. */
static void reflect_pad(real *padded, size_t w)
{
	real *row = padded + RADIUS;
	for (size_t i = 0; i < RADIUS; i++) {
		row[-1 - (ptrdiff_t)i] = row[i];
		row[w + i] = row[w - 1 - i];
	}
}

struct ring {
	real *rows;   /* CORE_SSIM_WIN slots of PLANES * w */
	real *padded; /* PLANES rows of w + 2 RADIUS */
	real *vert;   /* PLANES rows of w */
	size_t w;
	real g[RADIUS + 1];
	struct luma_lut lut;
};

static real *ring_slot(const struct ring *r, size_t src_row)
{
	return r->rows + (src_row % CORE_SSIM_WIN) * PLANES * r->w;
}

/* One row through the 11 taps, all at once so the sums stay in registers;
 * in points RADIUS samples into its padded row. */
static void filter_row(const real *restrict in, real *restrict out, size_t w,
                       const real *restrict g)
{
	for (size_t x = 0; x < w; x++) {
		const real *p = in + x;
		out[x] = g[0] * p[0] + g[1] * (p[-1] + p[1]) +
		         g[2] * (p[-2] + p[2]) + g[3] * (p[-3] + p[3]) +
		         g[4] * (p[-4] + p[4]) + g[5] * (p[-5] + p[5]);
	}
}

/* The five planes of source row `row`, filtered horizontally. */
static void horizontal_pass(struct ring *r, const struct core_ssim_image *a,
                            const struct core_ssim_image *b, size_t row)
{
	size_t w = r->w, pw = w + 2 * RADIUS;
	real *restrict px = r->padded + RADIUS;
	real *restrict py = px + pw;
	real *restrict pxx = py + pw;
	real *restrict pyy = pxx + pw;
	real *restrict pxy = pyy + pw;
	luma_row(a, &r->lut, row, px);
	luma_row(b, &r->lut, row, py);
	for (size_t x = 0; x < w; x++) {
		pxx[x] = px[x] * px[x];
		pyy[x] = py[x] * py[x];
		pxy[x] = px[x] * py[x];
	}
	real *out = ring_slot(r, row);
	for (int c = 0; c < PLANES; c++) {
		real *in = r->padded + c * pw;
		reflect_pad(in, w);
		filter_row(in + RADIUS, out + c * w, w, r->g);
	}
}

static size_t reflect_row(ptrdiff_t y, size_t h)
{
	if (y < 0)
		return (size_t)(-1 - y);
	if ((size_t)y >= h)
		return 2 * h - 1 - (size_t)y;
	return (size_t)y;
}

/* The vertical taps over rows m[-5..5] (pointers, mirrored at the image's
 * edges) of one plane. */
static void filter_column(const real *const m[CORE_SSIM_WIN],
                          real *restrict out, size_t w, const real *restrict g)
{
	const real *c = m[5];
	const real *u1 = m[4], *d1 = m[6], *u2 = m[3], *d2 = m[7];
	const real *u3 = m[2], *d3 = m[8], *u4 = m[1], *d4 = m[9];
	const real *u5 = m[0], *d5 = m[10];
	for (size_t x = 0; x < w; x++)
		out[x] = g[0] * c[x] + g[1] * (u1[x] + d1[x]) +
		         g[2] * (u2[x] + d2[x]) + g[3] * (u3[x] + d3[x]) +
		         g[4] * (u4[x] + d4[x]) + g[5] * (u5[x] + d5[x]);
}

/* The vertical pass of output row y into r->vert, then its SSIM (Eq. 13
 * with the means of Eq. 14 and the (co)variances of Eqs. 15-16). */
static void ssim_row(struct ring *r, size_t y, size_t h, real *restrict out)
{
	size_t w = r->w;
	for (int c = 0; c < PLANES; c++) {
		const real *m[CORE_SSIM_WIN];
		for (ptrdiff_t k = -RADIUS; k <= RADIUS; k++)
			m[k + RADIUS] =
			    ring_slot(r, reflect_row((ptrdiff_t)y + k, h)) +
			    c * w;
		filter_column(m, r->vert + c * w, w, r->g);
	}
	const real c1 = (K1 * L_RANGE) * (K1 * L_RANGE);
	const real c2 = (K2 * L_RANGE) * (K2 * L_RANGE);
	const real *restrict vx = r->vert;
	const real *restrict vy = vx + w;
	const real *restrict vxx = vy + w;
	const real *restrict vyy = vxx + w;
	const real *restrict vxy = vyy + w;
	for (size_t x = 0; x < w; x++) {
		real sx = vxx[x] - vx[x] * vx[x];
		real sy = vyy[x] - vy[x] * vy[x];
		real sxy = vxy[x] - vx[x] * vy[x];
		real mx = vx[x] + SHIFT, my = vy[x] + SHIFT;
		real num = (2 * mx * my + c1) * (2 * sxy + c2);
		real den = (mx * mx + my * my + c1) * (sx + sy + c2);
		out[x] = num / den;
	}
}

enum core_ssim_status core_ssim(const struct core_ssim_image *a,
                                const struct core_ssim_image *b,
                                void *workspace, size_t workspace_bytes,
                                float *map, double *mean)
{
	if (!image_ok(a) || !image_ok(b))
		return CORE_SSIM_BAD_IMAGE;
	if (a->width != b->width || a->height != b->height)
		return CORE_SSIM_SIZE_MISMATCH;
	size_t w = a->width, h = a->height;
	if (w < CORE_SSIM_WIN || h < CORE_SSIM_WIN)
		return CORE_SSIM_TOO_SMALL;
	size_t need = core_ssim_workspace_size(w, h);
	if (!workspace || need == 0 || workspace_bytes < need ||
	    (uintptr_t)workspace % _Alignof(real) != 0)
		return CORE_SSIM_WORKSPACE;

	struct ring r = {.rows = workspace, .w = w};
	r.padded = r.rows + (size_t)CORE_SSIM_WIN * PLANES * w;
	r.vert = r.padded + PLANES * (w + 2 * RADIUS);
	gaussian_taps(r.g);
	luma_lut_init(&r.lut);

	/* Without a map only the rows the mean keeps are needed. */
	size_t first = map ? 0 : RADIUS;
	size_t last = map ? h : h - RADIUS;
	real *row = r.vert + PLANES * w;
	double sum = 0.0;
	size_t done = 0; /* source rows filtered horizontally so far */
	for (size_t y = first; y < last; y++) {
		size_t need_row = y + RADIUS < h ? y + RADIUS : h - 1;
		while (done <= need_row)
			horizontal_pass(&r, a, b, done++);
		ssim_row(&r, y, h, row);
		if (map) {
			for (size_t x = 0; x < w; x++)
				map[y * w + x] = (float)row[x];
		}
		if (y < RADIUS || y >= h - RADIUS)
			continue;
		double row_sum = 0.0;
		for (size_t x = RADIUS; x < w - RADIUS; x++)
			row_sum += row[x];
		sum += row_sum; /* MSSIM, Eq. 17, over the cropped map */
	}
	if (mean)
		*mean =
		    sum / ((double)(w - 2 * RADIUS) * (double)(h - 2 * RADIUS));
	return CORE_SSIM_OK;
}
