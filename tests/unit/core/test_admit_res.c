/* Admission beyond the 3D engine (core/admit_res.h): each resource binds
 * alone, the count is the smallest, the 3D engine's refusal stands, and a
 * resource the newcomer does not use, or whose size is unknown, never
 * binds. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/admit_res.h"

#define MIB (1024ull * 1024ull)

/* What gOver's rule answered: it fits, `more` more. */
static struct core_admit fits3d(uint32_t more)
{
	return (struct core_admit){.fits = true,
	                           .more = more,
	                           .more_3d = more,
	                           .why = CORE_ADMIT_FITS,
	                           .limit = 0.9};
}

static void test_nothing_binds(void **state)
{
	(void)state;
	struct core_res_gpu g = {.has_encoder = true,
	                         .encoder_load = 0.85,
	                         .vram_total = 8192 * MIB,
	                         .vram_used = 8000 * MIB};
	/* a session that streams nothing and declares no VRAM */
	struct core_admit a = fits3d(4);
	core_admit_resources(&g, &(struct core_res_need){0}, 0.9, &a);
	assert_true(a.fits);
	assert_int_equal(a.more, 4);
	assert_int_equal(a.more_encoder, UINT32_MAX);
	assert_int_equal(a.more_vram, UINT32_MAX);
	/* a GPU whose encoder and memory are not measured */
	a = fits3d(4);
	core_admit_resources(
	    &(struct core_res_gpu){0},
	    &(struct core_res_need){.encoder = 0.5, .vram_bytes = 4096 * MIB},
	    0.9, &a);
	assert_true(a.fits);
	assert_int_equal(a.more, 4);
}

/* The encoder alone binds: 0.5 measured, 0.15 a stream, U_l 0.9: 0.5 +
 * 2 x 0.15 = 0.8 < 0.9, 0.5 + 3 x 0.15 = 0.95 is not. */
static void test_encoder_binds(void **state)
{
	(void)state;
	struct core_res_gpu g = {.has_encoder = true, .encoder_load = 0.5};
	struct core_res_need n = {.encoder = 0.15};
	struct core_admit a = fits3d(6);
	core_admit_resources(&g, &n, 0.9, &a);
	assert_true(a.fits);
	assert_int_equal(a.more_encoder, 2);
	assert_int_equal(a.more, 2);
	assert_int_equal(a.more_3d, 6);
	/* exactly at the limit is over it, as for the 3D engine */
	a = fits3d(6);
	core_admit_resources(&g, &(struct core_res_need){.encoder = 0.4}, 0.9,
	                     &a);
	assert_false(a.fits);
	assert_int_equal(a.more, 0);
	assert_int_equal(a.why, CORE_ADMIT_ENCODER);
	/* a load above the limit already, NaN load taken as none */
	g.encoder_load = 0.95;
	a = fits3d(6);
	core_admit_resources(&g, &n, 0.9, &a);
	assert_int_equal(a.why, CORE_ADMIT_ENCODER);
	g.encoder_load = NAN;
	a = fits3d(6);
	core_admit_resources(&g, &(struct core_res_need){.encoder = 0.2}, 0.9,
	                     &a);
	assert_int_equal(a.more_encoder, 4); /* 4 x 0.2 = 0.8 */
	assert_int_equal(a.more, 4);
}

/* VRAM alone binds: 8 GiB, 5 GiB used, 1 GiB a session: 3 fit (at most,
 * not strictly: memory is not oversold). */
static void test_vram_binds(void **state)
{
	(void)state;
	struct core_res_gpu g = {.vram_total = 8192 * MIB,
	                         .vram_used = 5120 * MIB};
	struct core_res_need n = {.vram_bytes = 1024 * MIB};
	struct core_admit a = fits3d(6);
	core_admit_resources(&g, &n, 0.9, &a);
	assert_true(a.fits);
	assert_int_equal(a.more_vram, 3);
	assert_int_equal(a.more, 3);
	n.vram_bytes = 4096 * MIB;
	a = fits3d(6);
	core_admit_resources(&g, &n, 0.9, &a);
	assert_false(a.fits);
	assert_int_equal(a.why, CORE_ADMIT_VRAM);
	assert_int_equal(a.more_3d, 6);
	/* used past total (another process grew meanwhile): no room */
	g.vram_used = 9000 * MIB;
	a = fits3d(6);
	core_admit_resources(&g, &(struct core_res_need){.vram_bytes = 1}, 0.9,
	                     &a);
	assert_int_equal(a.why, CORE_ADMIT_VRAM);
}

/* The smallest of the three counts, whichever it is. */
static void test_smallest_count(void **state)
{
	(void)state;
	struct core_res_gpu g = {.has_encoder = true,
	                         .encoder_load = 0.3,
	                         .vram_total = 8192 * MIB,
	                         .vram_used = 0};
	struct core_res_need n = {.encoder = 0.1, .vram_bytes = 2048 * MIB};
	/* 3D 2, encoder 5, VRAM 4 */
	struct core_admit a = fits3d(2);
	core_admit_resources(&g, &n, 0.9, &a);
	assert_int_equal(a.more, 2);
	assert_int_equal(a.more_encoder, 5);
	assert_int_equal(a.more_vram, 4);
	/* 3D 9: VRAM's 4 */
	a = fits3d(9);
	core_admit_resources(&g, &n, 0.9, &a);
	assert_int_equal(a.more, 4);
	/* the encoder's 3 */
	n.encoder = 0.19;
	a = fits3d(9);
	core_admit_resources(&g, &n, 0.9, &a);
	assert_int_equal(a.more, 3);
	/* both have no room: the encoder is named */
	g.encoder_load = 0.89;
	g.vram_used = 8192 * MIB;
	a = fits3d(9);
	core_admit_resources(&g, &n, 0.9, &a);
	assert_int_equal(a.why, CORE_ADMIT_ENCODER);
	assert_int_equal(a.more_vram, 0);
}

/* When the 3D engine refuses, its reason stands; the other counts are
 * still reported. */
static void test_3d_refusal_stands(void **state)
{
	(void)state;
	struct core_res_gpu g = {.has_encoder = true, .encoder_load = 0.95};
	struct core_admit a = {.why = CORE_ADMIT_LOAD};
	core_admit_resources(&g, &(struct core_res_need){.encoder = 0.1}, 0.9,
	                     &a);
	assert_false(a.fits);
	assert_int_equal(a.why, CORE_ADMIT_LOAD);
	assert_int_equal(a.more_encoder, 0);
	assert_non_null(
	    strstr(core_admit_reason_str(CORE_ADMIT_ENCODER), "encoder"));
	assert_non_null(strstr(core_admit_reason_str(CORE_ADMIT_VRAM), "VRAM"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_nothing_binds),
	    cmocka_unit_test(test_encoder_binds),
	    cmocka_unit_test(test_vram_binds),
	    cmocka_unit_test(test_smallest_count),
	    cmocka_unit_test(test_3d_refusal_stands),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
