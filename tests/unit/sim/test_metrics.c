/* Figures of merit on hand-made frame sequences, and the percentile. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "sim/engine/metrics.h"
#include "sim/engine/percentile.h"
#include "sim/engine/rng.h"
#include "sim/engine/sim.h"

#define MS(x) ((int64_t)(x)*1000000)

static void percentile_hand_computed(void **state)
{
	double a[] = {4.0, 1.0, 3.0, 2.0};
	assert_float_equal(sim_percentile(a, 4, 50.0), 2.5, 1e-12);
	/* Sorted in place. */
	assert_float_equal(a[0], 1.0, 0.0);
	assert_float_equal(a[3], 4.0, 0.0);
	assert_float_equal(sim_percentile(a, 4, 0.0), 1.0, 1e-12);
	assert_float_equal(sim_percentile(a, 4, 100.0), 4.0, 1e-12);
	/* rank 0.25 * 3 = 0.75: 1 + 0.75 * (2 - 1) */
	assert_float_equal(sim_percentile(a, 4, 25.0), 1.75, 1e-12);
	/* rank 0.99 * 3 = 2.97: 3 + 0.97 * (4 - 3) */
	assert_float_equal(sim_percentile(a, 4, 99.0), 3.97, 1e-12);

	double b[] = {10.0, 20.0, 30.0, 40.0,  50.0, 60.0,
	              70.0, 80.0, 90.0, 100.0, 110.0};
	/* rank 0.01 * 10 = 0.1 */
	assert_float_equal(sim_percentile(b, 11, 1.0), 11.0, 1e-12);
	double one = 7.0;
	assert_float_equal(sim_percentile(&one, 1, 1.0), 7.0, 0.0);
	assert_float_equal(sim_percentile(NULL, 0, 50.0), 0.0, 0.0);
}

/* The sort behind the percentile on large inputs with many ties, the
 * shape of a run's frame intervals. */
static void percentile_sorts_large_inputs(void **state)
{
	const size_t n = 100000;
	double *v = malloc(n * sizeof(*v));
	assert_non_null(v);
	struct sim_rng r;
	sim_rng_seed(&r, 11);
	for (size_t i = 0; i < n; i++)
		v[i] = (double)(sim_rng_next(&r) % 1000) / 10.0;
	double p = sim_percentile(v, n, 50.0);
	for (size_t i = 1; i < n; i++)
		assert_true(v[i - 1] <= v[i]);
	assert_float_equal(p, 0.5 * (v[n / 2 - 1] + v[n / 2]), 1e-12);
	/* Already sorted, reversed and constant inputs. */
	for (size_t i = 0; i < n; i++)
		v[i] = (double)(n - i);
	assert_float_equal(sim_percentile(v, n, 0.0), 1.0, 0.0);
	for (size_t i = 1; i < n; i++)
		assert_true(v[i - 1] <= v[i]);
	assert_float_equal(sim_percentile(v, n, 100.0), (double)n, 0.0);
	for (size_t i = 0; i < n; i++)
		v[i] = 3.0;
	assert_float_equal(sim_percentile(v, n, 99.0), 3.0, 0.0);
	free(v);
}

/* Selection gives the sorted answer, bit for bit. */
static void select_matches_sort(void **state)
{
	const size_t sizes[] = {1, 2, 3, 17, 100, 1000, 54321};
	const double ps[] = {0.0, 1.0, 37.5, 50.0, 99.0, 99.9, 100.0};
	struct sim_rng r;
	sim_rng_seed(&r, 12);
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		size_t n = sizes[s];
		double *a = malloc(n * sizeof(*a)), *b = malloc(n * sizeof(*b));
		assert_true(a && b);
		for (size_t k = 0; k < sizeof(ps) / sizeof(ps[0]); k++) {
			for (size_t i = 0; i < n; i++)
				a[i] = b[i] = (double)(sim_rng_next(&r) % 50) +
				              sim_rng_uniform(&r) * (k % 2);
			assert_true(sim_percentile_select(a, n, ps[k]) ==
			            sim_percentile(b, n, ps[k]));
		}
		free(a);
		free(b);
	}
}

static void windows_and_figures(void **state)
{
	struct sim_metrics m;
	assert_true(sim_metrics_init(&m, MS(1000), MS(4000)));
	assert_int_equal(m.n_secs, 4);
	const int64_t frames[] = {MS(500),  MS(1000), MS(1100), MS(1500),
	                          MS(2200), MS(3000), MS(3500), MS(3900),
	                          MS(4000)}; /* the last is past the end */
	for (size_t i = 0; i < sizeof(frames) / sizeof(frames[0]); i++)
		assert_true(sim_metrics_frame(&m, frames[i]));
	for (size_t w = 0; w < 4; w++)
		m.target_per_s[w] = 10.0 * (double)w;

	struct sim_tenant_result r = {.sla_fps = 2.0};
	assert_true(sim_metrics_summarize(&m, &r));
	assert_int_equal(r.n_secs, 4);
	const double per_s[] = {1.0, 3.0, 1.0, 3.0};
	for (size_t w = 0; w < 4; w++) {
		assert_float_equal(r.fps_per_s[w], per_s[w], 0.0);
		assert_float_equal(r.target_per_s[w], 10.0 * (double)w, 0.0);
	}
	/* 7 frames in [1, 4) s. */
	assert_float_equal(r.fps_mean, 7.0 / 3.0, 1e-12);
	/* Windows 1..3 are measured: {3, 1, 3}; one under 2 FPS. */
	assert_float_equal(r.below_sla_pct, 100.0 / 3.0, 1e-9);
	/* Sorted {1, 3, 3}, rank 0.02: 1 + 0.02 * 2. */
	assert_float_equal(r.fps_p1, 1.04, 1e-12);
	/* Intervals with both ends measured (0.5 s -> 1.0 s is not):
	 * {100, 400, 700, 800, 500, 400} ms; sorted, rank 4.95 lies between
	 * 700 and 800. */
	assert_float_equal(r.frame_ms_p99, 795.0, 1e-9);

	free(r.fps_per_s);
	free(r.target_per_s);
	sim_metrics_finish(&m);
}

/* Windows cut by the warm-up or the end are not whole: they stay out of
 * fps_p1 and below_sla_pct but are in the per-second arrays. */
static void partial_windows(void **state)
{
	struct sim_metrics m;
	assert_true(sim_metrics_init(&m, MS(1500), MS(3700)));
	assert_int_equal(m.n_secs, 4);
	for (int64_t t = 0; t < MS(3700); t += MS(100))
		assert_true(sim_metrics_frame(&m, t));
	struct sim_tenant_result r = {.sla_fps = 10.0};
	assert_true(sim_metrics_summarize(&m, &r));
	assert_float_equal(r.fps_per_s[0], 10.0, 0.0);
	assert_float_equal(r.fps_per_s[3], 7.0, 0.0);
	/* Only window 2 is whole and measured: 10 frames, not under 10. */
	assert_float_equal(r.below_sla_pct, 0.0, 0.0);
	assert_float_equal(r.fps_p1, 10.0, 0.0);
	/* Frames 1.5, 1.6, ..., 3.6 s: 22 in 2.2 s. */
	assert_float_equal(r.fps_mean, 22.0 / 2.2, 1e-9);
	assert_float_equal(r.frame_ms_p99, 100.0, 1e-6);
	free(r.fps_per_s);
	free(r.target_per_s);
	sim_metrics_finish(&m);
}

static void no_whole_window(void **state)
{
	struct sim_metrics m;
	assert_true(sim_metrics_init(&m, MS(200), MS(900)));
	assert_int_equal(m.n_secs, 1);
	assert_true(sim_metrics_frame(&m, MS(300)));
	struct sim_tenant_result r = {.sla_fps = 30.0};
	assert_true(sim_metrics_summarize(&m, &r));
	assert_float_equal(r.fps_p1, 0.0, 0.0);
	assert_float_equal(r.below_sla_pct, 0.0, 0.0);
	assert_float_equal(r.frame_ms_p99, 0.0, 0.0);
	assert_float_equal(r.fps_mean, 1.0 / 0.7, 1e-9);
	free(r.fps_per_s);
	free(r.target_per_s);
	sim_metrics_finish(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(percentile_hand_computed),
	    cmocka_unit_test(percentile_sorts_large_inputs),
	    cmocka_unit_test(select_matches_sort),
	    cmocka_unit_test(windows_and_figures),
	    cmocka_unit_test(partial_windows),
	    cmocka_unit_test(no_whole_window),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
