/* Binary PNM reader for the quality tools: P6 (RGB) and P5 (grey) with a
 * maxval of 1..255, comments allowed in the header (Netpbm's rules). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "core/ssim.h"

/* An image read from a file; pixels is malloc'd (free with pnm_free). */
struct pnm_image {
	unsigned char *pixels;
	size_t width, height;
	unsigned channels; /* 3 for P6, 1 for P5 */
};

/* Reads path into *img. On failure returns false, leaves *img empty and
 * writes a reason naming the file into err ("a.ppm: not a binary PPM/PGM
 * (P6/P5) file"). Samples are kept as stored (a maxval under 255 is not
 * rescaled). */
bool pnm_read(const char *path, struct pnm_image *img, char *err,
              size_t err_len);

void pnm_free(struct pnm_image *img);

/* The image as core_ssim reads it: rows packed, channels interleaved. */
struct core_ssim_image pnm_as_ssim(const struct pnm_image *img);
