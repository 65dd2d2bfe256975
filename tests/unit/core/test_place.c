/* Placement over a node's GPUs (src/core/place.c): pack takes the fullest
 * GPU that admits, spread the emptiest; ties by sessions, then the first;
 * GPUs that do not admit or are not eligible are never picked; a session
 * of unknown cost is admitted by the GPU's load and overload alone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/controller.h"
#include "core/place.h"

static struct core_place_gpu gpu(double load, size_t tenants, bool admits)
{
	return (struct core_place_gpu){.eligible = true,
	                               .admits = admits,
	                               .load = load,
	                               .tenants = tenants};
}

static void pack_takes_the_fullest_that_admits(void **state)
{
	(void)state;
	struct core_place_gpu g[] = {gpu(0.2, 1, true), gpu(0.5, 2, true),
	                             gpu(0.8, 3, false), gpu(0.0, 0, true)};
	assert_int_equal(core_place_pick(g, 4, CORE_PLACE_PACK), 1);
}

static void spread_takes_the_emptiest_that_admits(void **state)
{
	(void)state;
	struct core_place_gpu g[] = {gpu(0.2, 1, true), gpu(0.5, 2, true),
	                             gpu(0.0, 0, false), gpu(0.1, 1, true)};
	assert_int_equal(core_place_pick(g, 4, CORE_PLACE_SPREAD), 3);
}

/* Two idle GPUs, one holding a session that has not shown load yet: pack
 * joins it, spread avoids it; equal in both, the first wins. */
static void ties_go_by_sessions_then_the_first(void **state)
{
	(void)state;
	struct core_place_gpu g[] = {gpu(0.0, 0, true), gpu(0.0, 1, true)};
	assert_int_equal(core_place_pick(g, 2, CORE_PLACE_PACK), 1);
	assert_int_equal(core_place_pick(g, 2, CORE_PLACE_SPREAD), 0);
	struct core_place_gpu e[] = {gpu(0.3, 1, true), gpu(0.3, 1, true)};
	assert_int_equal(core_place_pick(e, 2, CORE_PLACE_PACK), 0);
	assert_int_equal(core_place_pick(e, 2, CORE_PLACE_SPREAD), 0);
}

static void a_full_node_places_nothing(void **state)
{
	(void)state;
	struct core_place_gpu g[] = {gpu(0.7, 2, false), gpu(0.6, 2, false)};
	assert_int_equal(core_place_pick(g, 2, CORE_PLACE_PACK), -1);
	assert_int_equal(core_place_pick(g, 2, CORE_PLACE_SPREAD), -1);
	assert_int_equal(core_place_pick(g, 0, CORE_PLACE_SPREAD), -1);
}

/* A session already confined to one GPU's cores goes there or nowhere. */
static void only_eligible_gpus_count(void **state)
{
	(void)state;
	struct core_place_gpu g[] = {gpu(0.0, 0, true), gpu(0.5, 1, true)};
	g[0].eligible = false;
	assert_int_equal(core_place_pick(g, 2, CORE_PLACE_SPREAD), 1);
	g[1].admits = false;
	assert_int_equal(core_place_pick(g, 2, CORE_PLACE_SPREAD), -1);
}

/* The same GPU state as core_caps_admit reads it: its load, its overload
 * flags, U_l. */
static void unknown_cost_admission(void **state)
{
	(void)state;
	struct core_params p = core_params_default();
	struct core_gpu g = {0};
	/* nothing sampled yet: an idle GPU admits, as capacity would not */
	struct core_admit a = core_place_admit_unknown(&p, &g);
	assert_true(a.fits);
	assert_int_equal(core_caps_admit(&p, &g, 0.005, 30).why,
	                 CORE_ADMIT_NO_SAMPLE);
	g.caps.sampled = true;
	g.caps.periods = 1;
	g.caps.total_load = g.caps.recent_load[0] = p.cap_u_limit - 0.01;
	a = core_place_admit_unknown(&p, &g);
	assert_true(a.fits);
	assert_float_equal(a.load, p.cap_u_limit - 0.01, 1e-12);
	assert_float_equal(a.newcomer, 0.0, 0.0);
	g.caps.total_load = g.caps.recent_load[0] = p.cap_u_limit;
	a = core_place_admit_unknown(&p, &g);
	assert_false(a.fits);
	assert_int_equal(a.why, CORE_ADMIT_LOAD);
	g.caps.total_load = g.caps.recent_load[0] = 0.1;
	g.caps.severe = true;
	a = core_place_admit_unknown(&p, &g);
	assert_false(a.fits);
	assert_int_equal(a.why, CORE_ADMIT_SEVERE);
}

static void mode_names(void **state)
{
	(void)state;
	enum core_place_mode m = CORE_PLACE_SPREAD;
	assert_true(core_place_mode_parse("pack", &m));
	assert_int_equal(m, CORE_PLACE_PACK);
	assert_string_equal(core_place_mode_name(m), "pack");
	assert_true(core_place_mode_parse("spread", &m));
	assert_int_equal(m, CORE_PLACE_SPREAD);
	assert_string_equal(core_place_mode_name(m), "spread");
	assert_false(core_place_mode_parse("Pack", &m));
	assert_false(core_place_mode_parse("", &m));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(pack_takes_the_fullest_that_admits),
	    cmocka_unit_test(spread_takes_the_emptiest_that_admits),
	    cmocka_unit_test(ties_go_by_sessions_then_the_first),
	    cmocka_unit_test(a_full_node_places_nothing),
	    cmocka_unit_test(only_eligible_gpus_count),
	    cmocka_unit_test(unknown_cost_admission),
	    cmocka_unit_test(mode_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
