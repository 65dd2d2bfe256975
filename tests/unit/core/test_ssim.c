/* core_ssim's edges: identical images give exactly 1, constant images the
 * closed form of Wang et al. 2004 Eq. 13 (the structure terms are 1 when
 * both variances are 0), symmetry, the RGB / RGBA / grey layouts agree,
 * and the errors (size mismatch, smaller than the 11x11 window, bad
 * layouts, short workspace) leave the outputs untouched. The agreement
 * with scikit-image is tests/unit/quality/ssim_vs_skimage.py's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "assert_near.h"
#include "core/ssim.h"

#define W 23
#define H 17

static unsigned char rgb_a[H][W][3], rgb_b[H][W][3];
static double workspace[4096]; /* plenty for W; checked below */

static void fill_noise(unsigned char (*px)[W][3], unsigned seed)
{
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++)
			for (int c = 0; c < 3; c++) {
				seed = seed * 1103515245u + 12345u;
				px[y][x][c] = (unsigned char)(seed >> 16);
			}
}

static struct core_ssim_image rgb(unsigned char (*px)[W][3])
{
	return (struct core_ssim_image){&px[0][0][0], W, H, W * 3, 3};
}

static double ssim_of(struct core_ssim_image a, struct core_ssim_image b)
{
	double mean = -2.0;
	assert_true(core_ssim_workspace_size(a.width, a.height) <=
	            sizeof(workspace));
	assert_int_equal(
	    core_ssim(&a, &b, workspace, sizeof(workspace), NULL, &mean),
	    CORE_SSIM_OK);
	return mean;
}

static void test_identical_is_one(void **state)
{
	(void)state;
	fill_noise(rgb_a, 1);
	struct core_ssim_image a = rgb(rgb_a);
	assert_near(ssim_of(a, a), 1.0, 1e-12);
	static float map[H * W];
	double mean = 0;
	assert_int_equal(
	    core_ssim(&a, &a, workspace, sizeof(workspace), map, &mean),
	    CORE_SSIM_OK);
	for (int i = 0; i < H * W; i++) /* borders too */
		assert_near(map[i], 1.0, 1e-6);
}

static void test_constant_images_closed_form(void **state)
{
	(void)state;
	const int values[][2] = {{0, 0}, {0, 255}, {27, 26}, {200, 100}};
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		double u = values[i][0], v = values[i][1];
		memset(rgb_a, values[i][0], sizeof(rgb_a));
		memset(rgb_b, values[i][1], sizeof(rgb_b));
		double c1 = (0.01 * 255) * (0.01 * 255);
		double want = (2 * u * v + c1) / (u * u + v * v + c1);
		assert_near(ssim_of(rgb(rgb_a), rgb(rgb_b)), want, 1e-9);
	}
}

static void test_symmetric_and_map_agrees_with_mean(void **state)
{
	(void)state;
	fill_noise(rgb_a, 2);
	fill_noise(rgb_b, 3);
	for (int y = 0; y < H; y++) /* correlate b with a a little */
		for (int x = 0; x < W; x++)
			rgb_b[y][x][1] = (unsigned char)((rgb_a[y][x][1] +
			                                  rgb_b[y][x][1] / 4) %
			                                 256);
	double ab = ssim_of(rgb(rgb_a), rgb(rgb_b));
	assert_near(ssim_of(rgb(rgb_b), rgb(rgb_a)), ab, 1e-12);
	assert_true(ab > -1.0 && ab < 1.0);

	static float map[H * W];
	struct core_ssim_image a = rgb(rgb_a), b = rgb(rgb_b);
	double mean = 0, sum = 0;
	assert_int_equal(
	    core_ssim(&a, &b, workspace, sizeof(workspace), map, &mean),
	    CORE_SSIM_OK);
	assert_near(mean, ab, 1e-12);
	for (int y = CORE_SSIM_CROP; y < H - CORE_SSIM_CROP; y++)
		for (int x = CORE_SSIM_CROP; x < W - CORE_SSIM_CROP; x++)
			sum += map[y * W + x];
	/* the map is float, the mean summed the doubles */
	assert_near(sum / ((W - 10) * (H - 10)), mean, 1e-6);
}

/* RGBA with a padded stride and an R=G=B grey image read as the same luma. */
static void test_layouts_agree(void **state)
{
	(void)state;
	fill_noise(rgb_a, 4);
	fill_noise(rgb_b, 5);
	double want = ssim_of(rgb(rgb_a), rgb(rgb_b));
	enum { STRIDE = W * 4 + 12 };
	static unsigned char rgba_a[H * STRIDE], rgba_b[H * STRIDE];
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++) {
			memcpy(&rgba_a[y * STRIDE + x * 4], rgb_a[y][x], 3);
			memcpy(&rgba_b[y * STRIDE + x * 4], rgb_b[y][x], 3);
			rgba_a[y * STRIDE + x * 4 + 3] = (unsigned char)x;
			rgba_b[y * STRIDE + x * 4 + 3] = 255;
		}
	struct core_ssim_image a4 = {rgba_a, W, H, STRIDE, 4};
	struct core_ssim_image b4 = {rgba_b, W, H, STRIDE, 4};
	assert_near(ssim_of(a4, b4), want, 1e-12);
	assert_near(ssim_of(a4, rgb(rgb_b)), want, 1e-12);

	static unsigned char grey_a[H * W], grey_b[H * W];
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++) {
			grey_a[y * W + x] = rgb_a[y][x][0];
			grey_b[y * W + x] = rgb_b[y][x][0];
			for (int c = 1; c < 3; c++) {
				rgb_a[y][x][c] = rgb_a[y][x][0];
				rgb_b[y][x][c] = rgb_b[y][x][0];
			}
		}
	struct core_ssim_image ga = {grey_a, W, H, W, 1};
	struct core_ssim_image gb = {grey_b, W, H, W, 1};
	assert_near(ssim_of(ga, gb), ssim_of(rgb(rgb_a), rgb(rgb_b)), 1e-9);
}

static void expect_status(struct core_ssim_image a, struct core_ssim_image b,
                          void *ws, size_t bytes, enum core_ssim_status want)
{
	double mean = 42.0;
	float map[1] = {42.0f};
	assert_int_equal(core_ssim(&a, &b, ws, bytes, NULL, &mean), want);
	assert_true(mean == 42.0 && map[0] == 42.0f);
	assert_non_null(core_ssim_status_str(want));
}

static void test_errors_write_nothing(void **state)
{
	(void)state;
	struct core_ssim_image a = rgb(rgb_a), b = rgb(rgb_b);
	size_t ws = sizeof(workspace);

	struct core_ssim_image narrow = a;
	narrow.width = W - 1;
	expect_status(a, narrow, workspace, ws, CORE_SSIM_SIZE_MISMATCH);

	/* smaller than the window, as scikit-image refuses: an error */
	struct core_ssim_image small = a, small_b = b;
	small.width = small_b.width = CORE_SSIM_WIN - 1;
	expect_status(small, small_b, workspace, ws, CORE_SSIM_TOO_SMALL);
	small = a, small_b = b;
	small.height = small_b.height = CORE_SSIM_WIN - 1;
	expect_status(small, small_b, workspace, ws, CORE_SSIM_TOO_SMALL);
	small.height = small_b.height = CORE_SSIM_WIN; /* the least accepted */
	small.width = small_b.width = CORE_SSIM_WIN;
	double one = ssim_of(small, small);
	assert_near(one, 1.0, 1e-12);

	struct core_ssim_image bad = a;
	bad.channels = 2;
	expect_status(bad, b, workspace, ws, CORE_SSIM_BAD_IMAGE);
	bad = a;
	bad.stride = W * 3 - 1;
	expect_status(bad, b, workspace, ws, CORE_SSIM_BAD_IMAGE);
	bad = a;
	bad.pixels = NULL;
	expect_status(a, bad, workspace, ws, CORE_SSIM_BAD_IMAGE);

	size_t need = core_ssim_workspace_size(W, H);
	expect_status(a, b, workspace, need - 1, CORE_SSIM_WORKSPACE);
	expect_status(a, b, NULL, need, CORE_SSIM_WORKSPACE);
	expect_status(a, b, (char *)workspace + 1, need, CORE_SSIM_WORKSPACE);
	assert_int_equal(core_ssim_workspace_size(SIZE_MAX / 2, 1), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_identical_is_one),
	    cmocka_unit_test(test_constant_images_closed_form),
	    cmocka_unit_test(test_symmetric_and_map_agrees_with_mean),
	    cmocka_unit_test(test_layouts_agree),
	    cmocka_unit_test(test_errors_write_nothing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
