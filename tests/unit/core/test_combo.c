/* Space harvesting's per-frame decisions (src/core/combo.c; COMBO and the
 * errata in docs/papers.md): Eq. 2's spread, Eq. 5 upright with the
 * granularity, the scheme per frame with its window and hold, the safe
 * switch, relaxed admission and headroom merging. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "assert_near.h"
#include "core/combo.h"

#define EPS 1e-12
#define QOS 0.0167 /* Table 6's QoS target */

/* Eq. 2: (max - min) / mean, with the prediction; nothing to spread
 * under two values. */
static void test_spread(void **state)
{
	(void)state;
	double rt[3] = {0.010, 0.012, 0.014};
	assert_near(core_combo_spread(rt, 3, -1.0), 0.004 / 0.012, EPS);
	assert_near(core_combo_spread(rt, 3, 0.016), 0.006 / 0.013, EPS);
	assert_near(core_combo_spread(rt, 1, -1.0), 0.0, 0.0);
	assert_near(core_combo_spread(rt, 1, 0.010), 0.0, 0.0);
	double bad[2] = {NAN, 0.01};
	assert_near(core_combo_spread(bad, 2, 0.01), 0.0, 0.0);
}

/* Eq. 5 upright: Table 6's stable frame (14.8 ms of 16.7) needs 73 of 82
 * SMs without the error bound (the ideal derived from the paper), 77
 * with 5.16 %;
 * Table 4's Severed Steel at Medium (5.75 ms at 120 FPS) 57; a frame
 * over the QoS takes the whole GPU; the granularity rounds up. */
static void test_split(void **state)
{
	(void)state;
	struct core_combo_params p = core_combo_params_default();
	p.eps = 0.0;
	assert_int_equal(core_combo_split(&p, 1.0 / QOS, 0.0148), 73);
	p.eps = 0.0516;
	assert_int_equal(core_combo_split(&p, 1.0 / QOS, 0.0148), 77);
	p.eps = 0.0;
	assert_int_equal(core_combo_split(&p, 120, 0.00575), 57);
	assert_int_equal(core_combo_split(&p, 60, 0.020), 82);
	assert_int_equal(core_combo_split(&p, 60, NAN), 82);
	assert_int_equal(core_combo_split(&p, 0, 0.01), 82);
	assert_int_equal(core_combo_split(&p, 1000, 1e-9), 1);
	/* An H100's 132 SMs in green-context steps of 8. */
	p.sm_total = 132;
	p.granularity = 8;
	assert_int_equal(core_combo_split(&p, 120, 0.00575), 96); /* 92 up */
	assert_int_equal(core_combo_split(&p, 120, 0.0082), 132);
}

static struct core_combo_game fill(const struct core_combo_params *p, double rt)
{
	struct core_combo_game g = {0};
	for (uint32_t i = 0; i < p->window; i++)
		core_combo_record(p, &g, rt);
	return g;
}

/* A stable load: the integrated scheme once the window is full. Its first
 * frame holds best-effort launches (a change of scheme); a render group
 * that keeps or shrinks its SMs leaves the rest to best-effort work at
 * once, one that grows holds them for that frame. */
static void test_stable_integrated(void **state)
{
	(void)state;
	struct core_combo_params p = core_combo_params_default();
	p.eps = 0.0;
	p.hold_s = 0.0;
	struct core_combo_game g = {0};
	/* No history: relaxed. */
	struct core_combo_frame f =
	    core_combo_decide(&p, &g, 1 / QOS, 0.0148, QOS);
	assert_int_equal(f.scheme, CORE_COMBO_RELAXED);
	assert_int_equal(f.be_sms, 82);
	g = fill(&p, 0.0148);
	f = core_combo_decide(&p, &g, 1 / QOS, 0.0148, QOS);
	assert_int_equal(f.scheme, CORE_COMBO_INTEGRATED);
	assert_int_equal(f.split, 73);
	assert_true(f.hold_be); /* its first frame */
	assert_int_equal(f.be_sms, 0);
	f = core_combo_decide(&p, &g, 1 / QOS, 0.0148, QOS);
	assert_false(f.hold_be);
	assert_false(f.switched);
	assert_int_equal(f.be_sms, 9);
	/* Shrinks (14.0 ms: 69 SMs): no hold. */
	core_combo_record(&p, &g, 0.0145);
	f = core_combo_decide(&p, &g, 1 / QOS, 0.0140, QOS);
	assert_int_equal(f.scheme, CORE_COMBO_INTEGRATED);
	assert_int_equal(f.split, 69);
	assert_false(f.hold_be);
	assert_int_equal(f.be_sms, 13);
	/* Grows back: held for that frame. */
	f = core_combo_decide(&p, &g, 1 / QOS, 0.0148, QOS);
	assert_int_equal(f.split, 73);
	assert_true(f.hold_be);
	assert_int_equal(f.be_sms, 0);
}

/* The asymmetric hold: the split only after hold_s of stable frames; a
 * dynamic load (12-16 ms: spread over 10 %) leaves it at its first frame,
 * for the relaxed scheme, that frame's BE launches held. */
static void test_dynamic_relaxed_and_hold(void **state)
{
	(void)state;
	struct core_combo_params p = core_combo_params_default();
	p.hold_s = 0.05; /* 3 frames at 60 */
	struct core_combo_game g = fill(&p, 0.0148);
	struct core_combo_frame f;
	for (int i = 0; i < 3; i++) {
		f = core_combo_decide(&p, &g, 1 / QOS, 0.0148, QOS);
		assert_int_equal(f.scheme, CORE_COMBO_RELAXED);
		assert_int_equal(f.be_sms, 82);
	}
	f = core_combo_decide(&p, &g, 1 / QOS, 0.0148, QOS);
	assert_int_equal(f.scheme, CORE_COMBO_INTEGRATED);
	assert_true(f.switched);
	assert_true(f.hold_be);
	core_combo_record(&p, &g, 0.012);
	core_combo_record(&p, &g, 0.016);
	f = core_combo_decide(&p, &g, 1 / QOS, 0.014, QOS);
	assert_true(f.spread > 0.10);
	assert_int_equal(f.scheme, CORE_COMBO_RELAXED);
	assert_true(f.switched);
	assert_true(f.hold_be);
	assert_int_equal(f.be_sms, 0);
	assert_int_equal(f.split, 82);
	f = core_combo_decide(&p, &g, 1 / QOS, 0.014, QOS);
	assert_false(f.hold_be);
	assert_int_equal(f.be_sms, 82);
	/* A bad prediction is never stable. */
	struct core_combo_game s = fill(&p, 0.0148);
	p.hold_s = 0.0;
	f = core_combo_decide(&p, &s, 1 / QOS, NAN, QOS);
	assert_int_equal(f.scheme, CORE_COMBO_RELAXED);
	f = core_combo_decide(&p, &s, 1 / QOS, 0.0148, QOS);
	assert_int_equal(f.scheme, CORE_COMBO_INTEGRATED);
}

/* A kernel may outlive the frame only while the window's longest render
 * needs no more SMs than the group in force. */
static void test_may_span(void **state)
{
	(void)state;
	struct core_combo_params p = core_combo_params_default();
	p.eps = 0.0;
	struct core_combo_game g = fill(&p, 0.0148); /* 73 SMs */
	assert_true(core_combo_may_span(&p, &g, 1 / QOS, 73));
	assert_false(core_combo_may_span(&p, &g, 1 / QOS, 72));
	core_combo_record(&p, &g, 0.016);
	assert_false(core_combo_may_span(&p, &g, 1 / QOS, 73));
	struct core_combo_game none = {0};
	assert_false(core_combo_may_span(&p, &none, 1 / QOS, 82));
}

/* Relaxed admission: the kernel and the render both end a margin before
 * the deadline; bad input admits nothing. */
static void test_fits(void **state)
{
	(void)state;
	struct core_combo_params p = core_combo_params_default();
	p.margin_s = 0.0002;
	/* Table 6, stable: 1.9 ms of headroom holds one 1.2-ms kernel. */
	assert_true(core_combo_fits(&p, 0.0148, 0.0012, 0.0148, QOS));
	assert_false(core_combo_fits(&p, 0.0160, 0.0012, 0.0148, QOS));
	/* Beside the render: its shared end must meet the deadline too. */
	assert_true(core_combo_fits(&p, 0.010, 0.0012, 0.0160, QOS));
	assert_false(core_combo_fits(&p, 0.010, 0.0012, 0.0166, QOS));
	assert_false(core_combo_fits(&p, 0.010, NAN, 0.0148, QOS));
	assert_false(core_combo_fits(&p, 0.010, 0.0, 0.0148, QOS));
}

/* §5.5: two windows of 0.7 ms each hold no 1.2-ms kernel apart and one
 * joined; 1.9 + 1.9 hold 2 apart and 3 joined; 0.5 + 0.5 nothing. The
 * delayed frame waits its slack less delta. */
static void test_merge(void **state)
{
	(void)state;
	assert_int_equal(core_combo_merge_gain(0.0007, 0.0007, 0.0012), 1);
	assert_int_equal(core_combo_merge_gain(0.0019, 0.0019, 0.0012), 1);
	assert_int_equal(core_combo_merge_gain(0.0005, 0.0005, 0.0012), 0);
	assert_int_equal(core_combo_merge_gain(0.0024, 0.0012, 0.0012), 0);
	assert_int_equal(core_combo_merge_gain(NAN, 0.001, 0.0012), 0);
	assert_int_equal(core_combo_merge_gain(0.001, 0.001, 0.0), 0);
	struct core_combo_params p = core_combo_params_default();
	assert_near(core_combo_merge_delay(&p, 60, 0.0148, 0.0001),
	            1.0 / 60 - 0.0148 * 1.0516 - 0.0001, EPS);
	assert_near(core_combo_merge_delay(&p, 60, 0.017, 0.0), 0.0, 0.0);
	assert_near(core_combo_merge_delay(&p, 0, 0.010, 0.0), 0.0, 0.0);
}

/* The window is a ring of W values; bad samples are not recorded. */
static void test_window(void **state)
{
	(void)state;
	struct core_combo_params p = core_combo_params_default();
	p.window = 3;
	struct core_combo_game g = {0};
	core_combo_record(&p, &g, 0.010);
	core_combo_record(&p, &g, NAN);
	core_combo_record(&p, &g, -1.0);
	assert_int_equal(g.n_rt, 1);
	for (int i = 0; i < 5; i++)
		core_combo_record(&p, &g, 0.020);
	assert_int_equal(g.n_rt, 3);
	/* the 10 ms value has left the window */
	assert_near(core_combo_spread(g.rt, g.n_rt, -1.0), 0.0, EPS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_spread),
	    cmocka_unit_test(test_split),
	    cmocka_unit_test(test_stable_integrated),
	    cmocka_unit_test(test_dynamic_relaxed_and_hold),
	    cmocka_unit_test(test_may_span),
	    cmocka_unit_test(test_fits),
	    cmocka_unit_test(test_merge),
	    cmocka_unit_test(test_window),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
