/* dJay's results through the simulator (docs/papers.md;
 * docs/djay-results.md): the djay-* built-ins run the core's
 * quality stage through core_controller_tick as batond does. Shapes and
 * exact decisions only, from the runs themselves, never wall-clock time:
 *  - djay-table1: the joins end at ME/HI (benefit 1.76), the doubled
 *    costs make the epoch step go one level at a time to LO/ME (1.64);
 *  - djay-fig11: under djay every player count that all-lo holds at its
 *    SLA is held, the mean SSIM is at least all-me's, and all-hi falls
 *    under its SLA from the 2nd or 3rd player on;
 *  - djay-fig12: the player in the heavy area steps down, the other not;
 *  - djay-fig13: Critical reacts within one epoch, HI -> LO. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>

#include <stdlib.h>
#include <unistd.h>

#include "quality/model_file.h"
#include "sim_test.h"

static struct sim_result run(const char *name, const char *mode,
                             struct sim_scenario *keep)
{
	struct sim_scenario sc;
	struct sim_error err;
	if (!sim_scenario_load(name, &sc, &err))
		fail_msg("%s: %s: %s", name, err.field, err.msg);
	if (mode && !sim_quality_set_mode(&sc, mode))
		fail_msg("mode %s", mode);
	struct sim_result r = test_run(&sc);
	if (keep)
		*keep = sc;
	else
		sim_scenario_finish(&sc);
	assert_true(r.quality);
	return r;
}

/* The summed SSIM model of every quality game at its level at window w's
 * end, on its first area's active counts (Table 1's b-hat). */
static double benefit_at(const struct sim_scenario *sc,
                         const struct sim_result *r, size_t w)
{
	double b = 0.0;
	for (size_t i = 0; i < r->n_tenants; i++) {
		const struct sim_quality_spec *q = sc->tenants[i].quality;
		double lv = r->tenants[i].quality->level_per_s[w];
		assert_false(isnan(lv));
		b += core_qm_benefit(&q->level[(size_t)lv], q->areas[0].active);
	}
	return b;
}

static size_t changes_after(const struct sim_quality_result *q, double t)
{
	size_t n = 0;
	for (size_t c = 0; c < q->n_changes; c++)
		n += q->changes[c].t_s > t;
	return n;
}

static void test_table1(void **state)
{
	(void)state;
	struct sim_scenario sc;
	struct sim_result r = run("djay-table1", NULL, &sc);
	assert_int_equal(r.n_tenants, 2);
	const struct sim_quality_result *s1 = r.tenants[0].quality;
	const struct sim_quality_result *s2 = r.tenants[1].quality;
	print_message("table1: at 15 s s1 %g s2 %g (%.4f), at the end %u %u "
	              "(%.4f)\n",
	              s1->level_per_s[15], s2->level_per_s[15],
	              r.q_benefit_per_s[15], s1->level, s2->level,
	              r.q_benefit_per_s[r.n_secs - 2]);
	/* Before the step: ME/HI, 0.8 + 0.96. */
	assert_true(s1->level_per_s[15] == 1.0 && s2->level_per_s[15] == 2.0);
	assert_true(fabs(benefit_at(&sc, &r, 15) - 1.76) < 1e-12);
	assert_true(fabs(r.q_benefit_per_s[15] - 1.76) < 1e-12);
	/* After: LO/ME, 0.7 + 0.94, each one level down (the epoch step,
	 * not a full reassignment, which would give ME/LO = 1.7). */
	size_t end = r.n_secs - 2;
	assert_int_equal(s1->level, 0);
	assert_int_equal(s2->level, 1);
	assert_true(fabs(benefit_at(&sc, &r, end) - 1.64) < 1e-12);
	assert_true(fabs(r.q_benefit_per_s[end] - 1.64) < 1e-12);
	assert_int_equal(changes_after(s1, 20.0), 1);
	assert_int_equal(changes_after(s2, 20.0), 1);
	assert_int_equal(r.q_refusals, 0);
	sim_result_finish(&r);
	sim_scenario_finish(&sc);
}

static bool held(const struct sim_quality_phase *p)
{
	return p->windows > 0 && p->secs_below <= 0.01 * p->windows;
}

static void test_fig11(void **state)
{
	(void)state;
	struct sim_result dj = run("djay-fig11", "djay", NULL);
	struct sim_result hi = run("djay-fig11", "all-hi", NULL);
	struct sim_result me = run("djay-fig11", "all-me", NULL);
	struct sim_result lo = run("djay-fig11", "all-lo", NULL);
	size_t n = dj.q_n_phases;
	assert_int_equal(n, 8);
	assert_int_equal(hi.q_n_phases, n);
	assert_int_equal(me.q_n_phases, n);
	assert_int_equal(lo.q_n_phases, n);
	int hi_falls = 0, lo_held = 0;
	for (size_t k = 0; k < n; k++) {
		const struct sim_quality_phase *d = &dj.q_phases[k];
		print_message(
		    "%u players: SSIM djay %.4f hi %.4f me %.4f lo "
		    "%.4f; min FPS %g %g %g %g\n",
		    d->players, d->mean_ssim, hi.q_phases[k].mean_ssim,
		    me.q_phases[k].mean_ssim, lo.q_phases[k].mean_ssim,
		    d->min_fps, hi.q_phases[k].min_fps, me.q_phases[k].min_fps,
		    lo.q_phases[k].min_fps);
		assert_int_equal(d->players, k + 1);
		if (held(&lo.q_phases[k])) {
			lo_held++;
			assert_true(held(d));
		}
		assert_true(d->mean_ssim >= me.q_phases[k].mean_ssim - 1e-3);
		if (!held(&hi.q_phases[k]) && !hi_falls)
			hi_falls = (int)d->players;
		if (hi_falls)
			assert_false(held(&hi.q_phases[k]));
	}
	assert_true(lo_held >= 6); /* all-lo holds most counts */
	assert_true(hi_falls == 2 || hi_falls == 3);
	assert_true(dj.q_mean_ssim >= me.q_mean_ssim);
	assert_true(dj.q_mean_ssim > lo.q_mean_ssim);
	assert_true(dj.q_mean_ssim > hi.q_mean_ssim);
	sim_result_finish(&dj);
	sim_result_finish(&hi);
	sim_result_finish(&me);
	sim_result_finish(&lo);
}

static void test_fig12(void **state)
{
	(void)state;
	struct sim_result r = run("djay-fig12", NULL, NULL);
	const struct sim_quality_result *boss = r.tenants[0].quality;
	const struct sim_quality_result *calm = r.tenants[1].quality;
	/* Both at HI in the hall; in the boss room (20-40 s) the one there
	 * steps down one level and the other stays; after, back up. */
	assert_true(boss->level_per_s[15] == 2.0);
	assert_true(boss->level_per_s[30] == 1.0);
	assert_true(boss->level_per_s[50] == 2.0);
	for (size_t w = 5; w + 1 < r.n_secs; w++)
		assert_true(calm->level_per_s[w] == 2.0);
	assert_true(boss->secs_below == 0 && calm->secs_below == 0);
	sim_result_finish(&r);
}

static void test_fig13(void **state)
{
	(void)state;
	struct sim_scenario sc;
	struct sim_result r = run("djay-fig13", NULL, &sc);
	const struct sim_quality_result *s1 = r.tenants[0].quality;
	const struct sim_quality_result *s2 = r.tenants[1].quality;
	assert_true(s1->n_areas >= 2);
	const struct sim_area_change *move = &s1->areas[1];
	const struct sim_level_change *first = NULL, *low = NULL;
	for (size_t c = 0; c < s1->n_changes; c++) {
		if (s1->changes[c].t_s < move->t_s)
			continue;
		if (!first)
			first = &s1->changes[c];
		if (!low && s1->changes[c].level == 0)
			low = &s1->changes[c];
	}
	assert_non_null(first);
	assert_non_null(low);
	/* Frames drawn in the heavy scene at HI: from the first one there
	 * to the first at the level chosen. */
	uint64_t react = first->frame + 1 - move->frame;
	uint64_t to_lo = low->frame + 1 - move->frame;
	double epoch = sc.params.epoch_s;
	print_message("fig13: moved at %.3f s (frame %llu); first reaction "
	              "at %.3f s after %llu frames, LO after %llu frames\n",
	              move->t_s, (unsigned long long)move->frame, first->t_s,
	              (unsigned long long)react, (unsigned long long)to_lo);
	assert_true(first->t_s - move->t_s <= epoch + 1e-6);
	assert_true(react <= 5); /* an epoch is 5 frames at 30 FPS */
	assert_true(low->t_s - move->t_s <= 2 * epoch + 1e-6);
	assert_int_equal(s1->level, 0);
	assert_int_equal(s2->level, 2);
	sim_result_finish(&r);
	sim_scenario_finish(&sc);
}

/* djay-fig13-pol: the potential list holds the crowd 0.5 s before the
 * move; the stage lowers s1 to LO before the crowd's first frame and no
 * second falls under the SLA (djay-fig13, without the look-ahead, loses
 * one). */
static void test_fig13_pol(void **state)
{
	(void)state;
	struct sim_result r = run("djay-fig13-pol", NULL, NULL);
	struct sim_result late = run("djay-fig13", NULL, NULL);
	const struct sim_quality_result *s1 = r.tenants[0].quality;
	assert_true(s1->n_areas >= 3);
	double crowd = s1->areas[2].t_s;
	const struct sim_level_change *lo = NULL;
	for (size_t c = 0; c < s1->n_changes && !lo; c++)
		if (s1->changes[c].level == 0)
			lo = &s1->changes[c];
	assert_non_null(lo);
	print_message("fig13-pol: LO at %.3f s, the crowd at %.3f s; "
	              "seconds below %g (without the look-ahead %g)\n",
	              lo->t_s, crowd, r.q_phases[0].secs_below,
	              late.q_phases[0].secs_below);
	assert_true(lo->t_s < crowd);
	assert_true(r.q_phases[0].secs_below == 0);
	assert_true(late.q_phases[0].secs_below > 0);
	assert_int_equal(s1->level, 0);
	sim_result_finish(&r);
	sim_result_finish(&late);
}

/* Scenario errors name the key. */
static void expect_error(const char *text, const char *field)
{
	struct sim_scenario sc;
	struct sim_error err;
	assert_false(sim_scenario_parse(text, "t.cfg", NULL, &sc, &err));
	print_message("%s: %s\n", err.field, err.msg);
	assert_non_null(strstr(err.field, field));
}

#define HEAD                                                                   \
	"name = \"t\"; duration_s = 10.0;\n"                                   \
	"tenants = ( { name = \"g\"; sla_fps = 30.0; cpu_ms = 1.0; "
#define LEVELS                                                                 \
	"levels = ( { cost_ms = [1.0]; ssim = [0.9]; }, "                      \
	"{ cost_ms = [2.0]; ssim = [1.0]; } ); "

static void test_errors(void **state)
{
	(void)state;
	expect_error(HEAD LEVELS "areas = ( { active = [1.0]; } ); } );\n"
	                         "quality = { mode = \"best\"; };",
	             "quality.mode");
	expect_error(HEAD "gpu_ms = 2.0; } );\nquality = { mode = \"djay\"; };",
	             "quality.mode");
	expect_error(HEAD LEVELS "gpu_ms = 2.0; areas = ( { active = [1.0]; "
	                         "} ); } );",
	             "tenants.[0].gpu_ms");
	expect_error(HEAD LEVELS "areas = ( { active = [1.0, 2.0]; } ); } );",
	             "tenants.[0].areas.[0].active");
	expect_error(HEAD LEVELS "} );", "tenants.[0].areas");
	expect_error(HEAD LEVELS "start_level = 2; areas = ( { active = "
	                         "[1.0]; } ); } );",
	             "tenants.[0].start_level");
	expect_error(HEAD "gpu_ms = 1.0; areas = ( { active = [1.0]; } ); } );",
	             "tenants.[0].areas");
	expect_error(HEAD "model = \"/nonexistent/m.json\"; areas = ( { "
	                  "active = [1.0]; } ); } );",
	             "tenants.[0].model");
	expect_error(HEAD LEVELS "areas = ( { duration_s = 1.0; active = "
	                         "[1.0]; }, { active = [0.0]; }, { active = "
	                         "[1.0]; } ); } );",
	             "tenants.[0].areas.[1]");
	expect_error(HEAD LEVELS "areas = ( { active = [1.0]; } ); } );\n"
	                         "quality = { mode = \"djay\"; "
	                         "stale_penalty = 2.0; };",
	             "quality.stale_penalty");
}

/* The number arrays (sim_cfg_num_array): one number per object type,
 * each a number in range, said in the message. */
static void test_number_arrays(void **state)
{
	(void)state;
	static const struct {
		const char *text, *msg;
	} cases[] = {
	    {HEAD LEVELS "areas = ( { active = [1.0, 2.0]; } ); } );",
	     "needs 1 numbers (one per object type), not 2"},
	    {HEAD LEVELS "areas = ( { active = [\"x\"]; } ); } );",
	     "expected a number"},
	    {HEAD LEVELS "areas = ( { active = [-1.0]; } ); } );",
	     "-1 is out of range: must be in [0, 1e+06]"},
	    {HEAD LEVELS "areas = ( { active = 1.0; } ); } );",
	     "expected an array of numbers"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sim_scenario sc;
		struct sim_error err;
		assert_false(sim_scenario_parse(cases[i].text, "t.cfg", NULL,
		                                &sc, &err));
		if (!strstr(err.msg, cases[i].msg))
			fail_msg("case %zu: \"%s\" lacks \"%s\"", i, err.msg,
			         cases[i].msg);
	}
}

/* A game whose levels come from a model file (Baton mode: intercept + loss
 * model): the file's costs drive its frames, and the stage picks the best
 * level that fits (two levels: 10 and 20 ms; at 30 FPS the GPU affords
 * the best one alone). */
static void test_model_file(void **state)
{
	(void)state;
	char path[] = "/tmp/baton-djay-model-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	struct quality_model_set set = {
	    .mode = CORE_QM_BATON, .n_types = 1, .n_levels = 2};
	snprintf(set.game, sizeof(set.game), "g");
	for (size_t l = 0; l < 2; l++) {
		struct core_qm_level *lv = &set.level[l];
		lv->mode = CORE_QM_BATON;
		lv->n_types = 1;
		lv->cost.intercept = 0.002;
		lv->cost.weight[0] = l ? 0.018 : 0.008;
		lv->cost.kept = 1;
		lv->benefit.weight[0] = l ? 0.0 : 0.1; /* loss: 1 - SSIM */
		lv->benefit.kept = l ? 0 : 1;
	}
	char msg[256];
	if (!quality_model_save(path, &set, msg, sizeof(msg)))
		fail_msg("%s", msg);
	char text[1024];
	snprintf(text, sizeof(text),
	         "name = \"m\"; duration_s = 10.0; warmup_s = 1.0;\n"
	         "quality = { mode = \"djay\"; };\n"
	         "tenants = ( { name = \"g\"; sla_fps = 30.0; cpu_ms = 1.0; "
	         "start_level = 0; model = \"%s\"; areas = ( { active = "
	         "[1.0]; } ); } );",
	         path);
	struct sim_scenario sc;
	struct sim_error err;
	bool ok = sim_scenario_parse(text, "m.cfg", NULL, &sc, &err);
	unlink(path);
	if (!ok)
		fail_msg("%s: %s", err.field, err.msg);
	assert_int_equal(sc.tenants[0].quality->n_levels, 2);
	struct sim_result r = test_run(&sc);
	const struct sim_quality_result *q = r.tenants[0].quality;
	assert_int_equal(q->level, 1);
	assert_int_equal(q->n_changes, 1);
	/* At the best level the loss model is empty: SSIM 1, 20 ms. */
	assert_true(fabs(q->ssim_per_s[5] - 1.0) < 1e-12);
	assert_true(fabs(r.tenants[0].gpu_share - 0.6) < 0.02);
	sim_result_finish(&r);
	sim_scenario_finish(&sc);
}

/* Areas by frames and by time, looped: each begins where the last ended
 * (the frame after its count, the instant after its duration). */
static void test_areas(void **state)
{
	(void)state;
	struct sim_scenario sc;
	struct sim_error err;
	const char *text =
	    "name = \"a\"; duration_s = 12.0; warmup_s = 1.0;\n"
	    "quality = { mode = \"all-hi\"; };\n"
	    "tenants = ( { name = \"g\"; sla_fps = 30.0; fixed_fps = 30.0; "
	    "cpu_ms = 1.0; " LEVELS "areas_loop = true; areas = ( "
	    "{ frames = 100; active = [1.0]; }, "
	    "{ duration_s = 2.5; active = [4.0]; } ); } );";
	if (!sim_scenario_parse(text, "a.cfg", NULL, &sc, &err))
		fail_msg("%s: %s", err.field, err.msg);
	struct sim_result r = test_run(&sc);
	const struct sim_quality_result *q = r.tenants[0].quality;
	assert_true(q->n_areas >= 4);
	assert_int_equal(q->areas[1].area, 1);
	assert_int_equal(q->areas[1].frame, 101);
	assert_int_equal(q->areas[2].area, 0);
	assert_true(fabs(q->areas[2].t_s - q->areas[1].t_s - 2.5) < 1e-9);
	assert_int_equal(q->areas[3].frame, q->areas[2].frame + 100);
	/* 30 FPS at 2 or 8 ms a frame: under the SLA nowhere. */
	assert_true(q->secs_below == 0 && q->min_fps >= 29);
	sim_result_finish(&r);
	sim_scenario_finish(&sc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_table1),
	    cmocka_unit_test(test_fig11),
	    cmocka_unit_test(test_fig12),
	    cmocka_unit_test(test_fig13),
	    cmocka_unit_test(test_fig13_pol),
	    cmocka_unit_test(test_errors),
	    cmocka_unit_test(test_number_arrays),
	    cmocka_unit_test(test_model_file),
	    cmocka_unit_test(test_areas),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
