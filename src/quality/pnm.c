/* Binary PNM (Netpbm P5 / P6) reader; see pnm.h. */
#include "quality/pnm.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Largest side accepted: far beyond any frame, and keeps w * h * 3 small. */
#define PNM_MAX_SIDE 65536u

/* Skips whitespace and '#' comments (to the end of the line). */
static int skip_space(FILE *f)
{
	int c;
	for (;;) {
		c = fgetc(f);
		if (c == '#') {
			while (c != '\n' && c != EOF)
				c = fgetc(f);
		} else if (!isspace(c)) {
			return c;
		}
	}
}

/* One decimal header field; false if none or too large. */
static bool read_field(FILE *f, unsigned long *out)
{
	int c = skip_space(f);
	if (!isdigit(c))
		return false;
	unsigned long v = 0;
	while (isdigit(c)) {
		v = v * 10 + (unsigned long)(c - '0');
		if (v > 10u * PNM_MAX_SIDE)
			return false;
		c = fgetc(f);
	}
	/* exactly one whitespace byte ends the last field before the raster */
	return c != EOF && isspace(c) && (*out = v, true);
}

static bool fail(char *err, size_t len, const char *path, const char *why)
{
	snprintf(err, len, "%s: %s", path, why);
	return false;
}

bool pnm_read(const char *path, struct pnm_image *img, char *err,
              size_t err_len)
{
	memset(img, 0, sizeof(*img));
	FILE *f = fopen(path, "rb");
	if (!f)
		return fail(err, err_len, path, strerror(errno));
	bool ok = false;
	unsigned long w, h, maxval;
	char magic[2];
	if (fread(magic, 1, 2, f) != 2 || magic[0] != 'P' ||
	    (magic[1] != '5' && magic[1] != '6')) {
		fail(err, err_len, path, "not a binary PPM/PGM (P6/P5) file");
		goto out;
	}
	if (!read_field(f, &w) || !read_field(f, &h) ||
	    !read_field(f, &maxval)) {
		fail(err, err_len, path, "malformed PNM header");
		goto out;
	}
	if (w == 0 || h == 0 || w > PNM_MAX_SIDE || h > PNM_MAX_SIDE) {
		fail(err, err_len, path, "width or height out of range");
		goto out;
	}
	if (maxval == 0 || maxval > 255) {
		fail(err, err_len, path,
		     "maxval must be 1..255 (16-bit samples are not read)");
		goto out;
	}
	unsigned channels = magic[1] == '6' ? 3 : 1;
	size_t bytes = (size_t)w * h * channels;
	unsigned char *px = malloc(bytes);
	if (!px) {
		fail(err, err_len, path, "out of memory");
		goto out;
	}
	if (fread(px, 1, bytes, f) != bytes) {
		free(px);
		fail(err, err_len, path,
		     ferror(f) ? strerror(errno) : "truncated pixel data");
		goto out;
	}
	*img = (struct pnm_image){
	    .pixels = px, .width = w, .height = h, .channels = channels};
	ok = true;
out:
	fclose(f);
	return ok;
}

void pnm_free(struct pnm_image *img)
{
	free(img->pixels);
	memset(img, 0, sizeof(*img));
}

struct core_ssim_image pnm_as_ssim(const struct pnm_image *img)
{
	return (struct core_ssim_image){.pixels = img->pixels,
	                                .width = img->width,
	                                .height = img->height,
	                                .stride = img->width * img->channels,
	                                .channels = img->channels};
}
