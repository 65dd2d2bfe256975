/* Space harvesting's timeline (sim_combo.h), what `baton sim --plot` draws
 * for a combo scenario: every frame recorded with the scheme in force and
 * its SM groups, consistent with the run's figures, and bounded by even
 * decimation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>

#include "sim_test.h"
#include "sim/combo/sim_combo.h"

static const struct sim_combo_run *scheme(const struct sim_result *r,
                                          enum sim_combo_scheme s)
{
	for (size_t i = 0; i < r->combo_result.n_runs; i++)
		if (r->combo_result.runs[i].scheme == s)
			return &r->combo_result.runs[i];
	fail_msg("no %s run", sim_combo_scheme_name(s));
	return NULL;
}

/* What holds in any run's timeline; counts of integrated and held frames
 * among the measured ones come back. */
static void check_run(const struct sim_combo_run *run, double warmup,
                      double duration, size_t *integrated, size_t *held)
{
	const struct sim_combo_timeline *tl = &run->timeline;
	assert_int_equal(tl->sm_total, 82);
	assert_true(fabs(tl->period_s - 0.0167) < 1e-9);
	assert_int_equal(tl->stride, 1);
	/* every frame, warm-up included: 60 s at 59.88 FPS */
	assert_true(tl->n > run->frames && tl->n <= SIM_COMBO_TIMELINE_MAX);
	assert_true(tl->n < run->frames + (size_t)(warmup / 0.0167) + 2);
	*integrated = *held = 0;
	for (size_t i = 0; i < tl->n; i++) {
		const struct sim_combo_sample *s = &tl->v[i];
		if (i > 0)
			assert_true(s->t_s > tl->v[i - 1].t_s);
		assert_true(s->t_s >= 0.0 && s->t_s < duration);
		assert_true(s->split >= 1 && s->split <= tl->sm_total);
		assert_true(s->be_busy >= 0.0 &&
		            s->be_busy <= (double)tl->sm_total + 1e-9);
		/* each frame but perhaps the last ended its render */
		if (i + 1 < tl->n)
			assert_true(s->render_s >= s->rt_s - 1e-9);
		if (s->scheme == SIM_COMBO_INTEGRATED) {
			assert_true(s->split + s->be_sms <= tl->sm_total);
			if (s->held)
				assert_int_equal(s->be_sms, 0);
		} else {
			assert_int_equal(s->split, tl->sm_total);
		}
		if (run->scheme == SIM_COMBO_TEMPORAL)
			assert_int_equal(s->scheme, SIM_COMBO_TEMPORAL);
		/* a frame is measured where the step that starts it is
		 * past the warm-up: at most a step after t_s */
		if (s->t_s >= warmup) {
			*integrated += s->scheme == SIM_COMBO_INTEGRATED;
			*held += s->held;
		}
	}
}

static void test_dynamic_timeline(void **state)
{
	(void)state;
	struct sim_scenario sc;
	struct sim_error err;
	if (!sim_scenario_load("combo-table6-dynamic", &sc, &err))
		fail_msg("%s: %s", err.field, err.msg);
	struct sim_result r;
	if (!sim_run(&sc, &r, &err))
		fail_msg("%s", err.msg);
	for (size_t i = 0; i < r.combo_result.n_runs; i++) {
		const struct sim_combo_run *run = &r.combo_result.runs[i];
		size_t integrated, held;
		check_run(run, sc.warmup_s, sc.duration_s, &integrated, &held);
		/* the figures and the timeline agree, to the one frame a
		 * start on the warm-up's edge may move */
		double n = (double)run->frames;
		assert_true(fabs((double)integrated -
		                 run->integrated_pct / 100.0 * n) <=
		            1.0 + 1e-6);
		assert_true(fabs((double)held - (double)run->held) <= 1.0);
	}
	/* the adaptive run switches: both schemes in its timeline, and a
	 * growing split holds some frames' launches */
	const struct sim_combo_timeline *ad =
	    &scheme(&r, SIM_COMBO_ADAPTIVE)->timeline;
	size_t by[SIM_COMBO_N_SCHEMES] = {0};
	size_t held = 0;
	for (size_t i = 0; i < ad->n; i++) {
		by[ad->v[i].scheme]++;
		held += ad->v[i].held;
	}
	assert_true(by[SIM_COMBO_INTEGRATED] > 0 && by[SIM_COMBO_RELAXED] > 0);
	assert_true(by[SIM_COMBO_INTEGRATED] < by[SIM_COMBO_RELAXED]);
	assert_true(held > 0);
	/* BE does work somewhere: its busy SMs are not all zero */
	double busy = 0.0;
	for (size_t i = 0; i < ad->n; i++)
		busy += ad->v[i].be_busy;
	assert_true(busy > 0.0);
	sim_scenario_finish(&sc);
	sim_result_finish(&r);
	assert_null(r.combo_result.runs[0].timeline.v);
}

/* Past SIM_COMBO_TIMELINE_MAX frames every other sample goes and the
 * stride doubles: the kept frames stay evenly spaced from frame 0. */
static void test_decimation(void **state)
{
	(void)state;
	struct sim_combo_result res = {.n_runs = 1};
	struct sim_combo_timeline *tl = &res.runs[0].timeline;
	const uint64_t frames = 5 * SIM_COMBO_TIMELINE_MAX + 7;
	uint64_t kept = 0;
	for (uint64_t k = 0; k < frames; k++) {
		struct sim_combo_sample s = {.t_s = (double)k};
		long at;
		assert_true(sim_combo_timeline_add(tl, k, &s, &at));
		if (at >= 0) {
			assert_true(tl->v[at].t_s == (double)k);
			kept++;
		}
		assert_true(tl->n <= SIM_COMBO_TIMELINE_MAX);
		assert_true(tl->cap <= SIM_COMBO_TIMELINE_MAX);
	}
	assert_true(kept > tl->n);
	/* 5 x MAX frames: the stride went 1, 2, 4, 8 */
	assert_int_equal(tl->stride, 8);
	assert_true(tl->n > SIM_COMBO_TIMELINE_MAX / 2);
	for (size_t i = 0; i < tl->n; i++)
		assert_true(tl->v[i].t_s == (double)(i * tl->stride));
	assert_true(tl->v[tl->n - 1].t_s + (double)tl->stride >=
	            (double)frames);
	sim_combo_free(&res);
	assert_null(tl->v);
	assert_int_equal(tl->n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_dynamic_timeline),
	    cmocka_unit_test(test_decimation),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
