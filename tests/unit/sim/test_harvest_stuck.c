/* The stuck rule in the simulator (docs/harvesting.md, "A hung
 * sub-launch"; core/harvest_stuck.h): the harvest-stuck built-in (two
 * paced games, two BE tenants, the first hangs a sub-launch 2 s at 20 s)
 * with the rule on and off, on its FIFO GPU and on a time-sliced one.
 * Shapes only: the stuck seconds match the hang, the other BE tenant
 * releases nothing while the hung kernel is held stuck and works again
 * after, and the games lose no more than the hang itself costs them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>

#include "sim_test.h"

enum { SHOOTER = 0, RACER = 1, MATMUL = 2, TRAINING = 3 };

#define HANG_S 2.0

struct variant {
	bool rule;       /* the stuck rule on */
	bool hang;       /* matmul's hang kept */
	bool timeslice;  /* time slicing instead of FIFO */
	double warmup_s; /* > 0: measure from here */
};

static struct sim_result run(struct variant v)
{
	struct sim_scenario sc;
	struct sim_error err;
	if (!sim_scenario_load("harvest-stuck", &sc, &err))
		fail_msg("harvest-stuck: %s: %s", err.field, err.msg);
	assert_int_equal(sc.n_tenants, 4);
	assert_true(sc.stuck_rule);
	assert_true(fabs(sc.tenants[MATMUL].be.hang_s - HANG_S) < 1e-9);
	sc.stuck_rule = v.rule;
	if (!v.hang)
		sc.tenants[MATMUL].be.hang_s = 0.0;
	if (v.timeslice)
		sc.gpu = (struct sim_gpu_spec){.model = SIM_GPU_TIMESLICE,
		                               .quantum_ms = 1.0,
		                               .switch_us = 50.0};
	if (v.warmup_s > 0.0)
		sc.warmup_s = v.warmup_s;
	struct sim_result r = test_run(&sc);
	sim_scenario_finish(&sc);
	return r;
}

static void show(const char *what, const struct sim_result *r)
{
	const struct sim_tenant_result *t = r->tenants;
	print_message("%s: games below SLA %.1f/%.1f %%, longest frame "
	              "%.1f/%.1f ms; matmul stuck %.2f s; training ran %.1f "
	              "ms and released %llu while it hung\n",
	              what, t[SHOOTER].below_sla_pct, t[RACER].below_sla_pct,
	              t[SHOOTER].frame_ms_max, t[RACER].frame_ms_max,
	              t[MATMUL].be_stuck_s, t[TRAINING].be_run_while_stuck_ms,
	              (unsigned long long)t[TRAINING].be_launched_while_stuck);
}

/* Measured one-second windows with fewer than 90 % of the SLA's frames. */
static int short_windows(const struct sim_tenant_result *t, double warmup_s)
{
	int n = 0;
	for (size_t w = (size_t)ceil(warmup_s); w < t->n_secs; w++)
		n += t->fps_per_s[w] < 0.9 * t->sla_fps;
	return n;
}

/* FIFO at kernel boundaries: the games wait behind the hung kernel (no
 * rule can shorten that) and behind the one sub-launch the other tenant
 * had released before the rule saw the hang, never behind more. */
static void test_fifo(void **state)
{
	(void)state;
	struct sim_result on =
	    run((struct variant){.rule = true, .hang = true});
	struct sim_result off = run((struct variant){.hang = true});
	struct sim_result none =
	    run((struct variant){.rule = true, .hang = false});
	show("fifo, rule", &on);
	show("fifo, no rule", &off);
	show("fifo, no hang", &none);

	/* Flagged past max(2 w, w + 50 ms), cleared at the tick after its
	 * record (0.1 s epochs): the hang to within a tick or two. */
	assert_true(fabs(on.tenants[MATMUL].be_stuck_s - HANG_S) < 0.25);
	assert_true(off.tenants[MATMUL].be_stuck_s == 0.0);
	assert_true(none.tenants[MATMUL].be_stuck_s == 0.0);

	/* The other tenant: nothing released under the rule, and at most
	 * the one sub-launch queued before it (its window, under one frame
	 * period of the 60 FPS game); without the rule it goes on. */
	const struct sim_tenant_result *tr = &on.tenants[TRAINING];
	assert_int_equal(tr->be_launched_while_stuck, 0);
	assert_true(tr->be_run_while_stuck_ms <= 1000.0 / 60.0);
	assert_true(off.tenants[TRAINING].be_launched_while_stuck > 0);
	assert_true(off.tenants[TRAINING].be_run_while_stuck_ms >
	            tr->be_run_while_stuck_ms);
	assert_int_equal(none.tenants[TRAINING].be_run_while_stuck_ms, 0);

	for (int g = SHOOTER; g <= RACER; g++) {
		const struct sim_tenant_result *a = &on.tenants[g];
		double period_ms = 1000.0 / a->sla_fps;
		/* The longest frame: the hang and two frame periods. */
		assert_true(a->frame_ms_max > HANG_S * 1000.0);
		assert_true(a->frame_ms_max < HANG_S * 1000.0 + 2 * period_ms);
		assert_true(none.tenants[g].frame_ms_max < 2 * period_ms);
		/* A 2 s hang empties at most three one-second windows
		 * (a paced game's 29 frames in a window, its phase moved by
		 * the hang, are not counted: 10 % of the SLA). */
		assert_true(short_windows(&a[0], on.warmup_s) <= 3);
		assert_true(short_windows(&none.tenants[g], on.warmup_s) == 0);
		/* The rule costs the games nothing against no rule. */
		assert_true(a->below_sla_pct <=
		            off.tenants[g].below_sla_pct + 1e-9);
		assert_true(a->frame_ms_max <=
		            off.tenants[g].frame_ms_max + 1e-6);
	}
	sim_result_finish(&on);
	sim_result_finish(&off);
	sim_result_finish(&none);
}

/* After the record, both BE tenants work as before: measured from 23 s
 * (the hang ends at about 22 s), within 10 % of the run without it. */
static void test_fifo_after(void **state)
{
	(void)state;
	struct sim_result on =
	    run((struct variant){.rule = true, .hang = true, .warmup_s = 23.0});
	struct sim_result none = run(
	    (struct variant){.rule = true, .hang = false, .warmup_s = 23.0});
	for (int b = MATMUL; b <= TRAINING; b++) {
		double got = on.tenants[b].be_blocks_per_s;
		double want = none.tenants[b].be_blocks_per_s;
		print_message("%s after the hang: %.1f blocks/s, %.1f without "
		              "it\n",
		              on.tenants[b].name, got, want);
		assert_true(want > 0.0);
		assert_true(fabs(rel_err(got, want)) < 0.1);
		assert_true(on.tenants[b].be_stuck_s == 0.0);
	}
	sim_result_finish(&on);
	sim_result_finish(&none);
}

/* Time slicing: the hung kernel shares the GPU, so it is held stuck
 * longer than its hang; without the rule the other tenant keeps
 * releasing sub-launches beside it, under the rule none. */
static void test_timeslice(void **state)
{
	(void)state;
	struct sim_result on = run(
	    (struct variant){.rule = true, .hang = true, .timeslice = true});
	struct sim_result off =
	    run((struct variant){.hang = true, .timeslice = true});
	show("timeslice, rule", &on);
	show("timeslice, no rule", &off);
	assert_true(on.tenants[MATMUL].be_stuck_s > HANG_S);
	assert_int_equal(on.tenants[TRAINING].be_launched_while_stuck, 0);
	assert_true(on.tenants[TRAINING].be_run_while_stuck_ms <=
	            1000.0 / 60.0);
	assert_true(off.tenants[TRAINING].be_launched_while_stuck > 10);
	assert_true(off.tenants[TRAINING].be_run_while_stuck_ms > 100.0);
	sim_result_finish(&on);
	sim_result_finish(&off);
}

static bool parses(const char *text, struct sim_error *err)
{
	struct sim_scenario sc;
	bool ok = sim_scenario_parse(text, "t.cfg", NULL, &sc, err);
	if (ok)
		sim_scenario_finish(&sc);
	return ok;
}

#define GAME "{ name = \"g\"; sla_fps = 60; cpu_ms = 2; gpu_ms = 4; }"
#define BE(extra)                                                              \
	"{ name = \"b\"; kind = \"be\"; blocks = 8; c1_ms = 1; " extra " }"

/* The scenario keys: hang_at_s and hang_s on a gated BE tenant, the
 * harvest group's stuck_factor, stuck_ms and stuck. */
static void test_keys(void **state)
{
	(void)state;
	struct sim_error err;
	assert_true(parses(
	    "name = \"k\"; tenants = (" GAME
	    ", " BE("hang_at_s = 5; hang_s "
	            "= 1;") ");"
	                    "harvest = { stuck_factor = 3; stuck_ms = 20; "
	                    "stuck = false; };",
	    &err));
	assert_false(parses("name = \"k\"; tenants = (" GAME
	                    ", " BE("gate = \"naive\"; hang_s = 1;") ");",
	                    &err));
	assert_string_equal(err.field, "tenants.[1].hang_s");
	assert_false(parses("name = \"k\"; tenants = (" GAME
	                    ", " BE("hang_s = -1;") ");",
	                    &err));
	assert_false(parses("name = \"k\"; tenants = (" GAME
	                    ", " BE("") ");"
	                                "harvest = { stuck_factor = 0.5; };",
	                    &err));
	assert_string_equal(err.field, "harvest.stuck_factor");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fifo),
	    cmocka_unit_test(test_fifo_after),
	    cmocka_unit_test(test_timeslice),
	    cmocka_unit_test(test_keys),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
