/* SSIM (Wang, Bovik, Sheikh, Simoncelli, "Image Quality Assessment: From
 * Error Visibility to Structural Similarity", IEEE TIP 2004) of two 8-bit
 * images' BT.601 luma, for the quality lever (dJay compares a frame with the
 * same frame at the best quality level).
 *
 * It matches scikit-image's structural_similarity(a, b,
 * gaussian_weights=True, sigma=1.5, use_sample_covariance=False,
 * data_range=255) on the luma images: an 11-tap Gaussian window (sigma 1.5,
 * Sec. III-C), half-sample symmetric borders (d c b a | a b c d), K1 = 0.01,
 * K2 = 0.03, L = 255, population (co)variances, and the mean of the map
 * with CORE_SSIM_CROP pixels cropped from every border.
 *
 * Pure: no allocation; the caller passes a workspace of
 * core_ssim_workspace_size() bytes. Images smaller than the window in either
 * dimension are refused (CORE_SSIM_TOO_SMALL), as scikit-image refuses them.
 */
#pragma once

#include <stddef.h>

#define CORE_SSIM_WIN                                                          \
	11 /* Gaussian window taps: 2 * int(3.5 * 1.5 + 0.5) + 1 */
#define CORE_SSIM_CROP 5 /* (CORE_SSIM_WIN - 1) / 2 */

/* An 8-bit image: channels 1 (grey, the value is the luma), 3 (RGB) or 4
 * (RGBA, alpha ignored); stride is the bytes from one row to the next. */
struct core_ssim_image {
	const unsigned char *pixels;
	size_t width, height, stride;
	unsigned channels;
};

enum core_ssim_status {
	CORE_SSIM_OK = 0,
	CORE_SSIM_SIZE_MISMATCH, /* the two images differ in width or height */
	CORE_SSIM_TOO_SMALL,     /* width or height under CORE_SSIM_WIN */
	CORE_SSIM_BAD_IMAGE,     /* channels not 1, 3 or 4; stride too short;
	                            no pixels */
	CORE_SSIM_WORKSPACE,     /* workspace missing, short or misaligned */
};

/* Bytes of workspace core_ssim needs for a width x height pair (float
 * aligned; malloc's alignment does). 0 if the size would overflow. */
size_t core_ssim_workspace_size(size_t width, size_t height);

/* The mean SSIM of a against b into *mean (cropped as above). If map is not
 * NULL it receives the whole width x height SSIM map, row-major (as
 * scikit-image's full=True, before cropping). Nothing is written unless the
 * result is CORE_SSIM_OK. */
enum core_ssim_status core_ssim(const struct core_ssim_image *a,
                                const struct core_ssim_image *b,
                                void *workspace, size_t workspace_bytes,
                                float *map, double *mean);

/* A short English phrase for the status ("images differ in size"). */
const char *core_ssim_status_str(enum core_ssim_status s);
