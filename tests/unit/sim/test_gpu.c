/* The GPU state machine on its own, step by step. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "sim/engine/gpu.h"

#define US(x) ((int64_t)(x)*1000)

/* Fires the pending event at *t and checks what happened. */
static void step(struct sim_gpu *g, int64_t *t, int expect_done_ctx,
                 int64_t expect_next)
{
	struct sim_gpu_done done = {0};
	int64_t next;
	bool fin = sim_gpu_event(g, *t, &done, &next);
	if (expect_done_ctx < 0) {
		assert_false(fin);
	} else {
		assert_true(fin);
		assert_int_equal(done.ctx, (uint32_t)expect_done_ctx);
	}
	assert_int_equal(next, expect_next);
	*t = next;
}

static void timeslice_round_robin_with_switches(void **state)
{
	struct sim_gpu_spec spec = {
	    .model = SIM_GPU_TIMESLICE, .quantum_ms = 1.0, .switch_us = 100.0};
	uint32_t caps[] = {2, 2};
	struct sim_gpu g;
	assert_true(sim_gpu_init(&g, &spec, 2, caps));

	/* The first context to run pays no switch. */
	assert_int_equal(sim_gpu_submit(&g, 0, 0, US(2500)), US(1000));
	assert_int_equal(sim_gpu_submit(&g, 0, 1, US(1000)), -1);
	int64_t t = US(1000);
	step(&g, &t, -1, US(1100)); /* A's quantum over: switch to B */
	step(&g, &t, -1, US(2100)); /* B runs its job */
	step(&g, &t, 1, US(2200));  /* B done, switch back to A */
	assert_int_equal(sim_gpu_exec_ns(&g, 1, t), US(1000));
	step(&g, &t, -1, US(3200)); /* A runs a quantum */
	step(&g, &t, -1, US(3700)); /* alone: a fresh quantum, no switch */
	step(&g, &t, 0, -1);        /* A done, GPU idle */
	assert_int_equal(sim_gpu_busy_ns(&g, US(5000)), US(3700));
	assert_int_equal(sim_gpu_exec_ns(&g, 0, US(5000)), US(2500));
	assert_int_equal(sim_gpu_exec_ns(&g, 1, US(5000)), US(1000));

	/* A ran last: no switch when it comes back. */
	assert_int_equal(sim_gpu_submit(&g, US(5000), 0, US(300)), US(5300));
	/* Mid-segment, time is counted up to the instant asked. */
	assert_int_equal(sim_gpu_busy_ns(&g, US(5100)), US(3800));
	assert_int_equal(sim_gpu_exec_ns(&g, 0, US(5100)), US(2600));
	t = US(5300);
	step(&g, &t, 0, -1);
	sim_gpu_finish(&g);
}

static void timeslice_job_queue_is_fifo(void **state)
{
	struct sim_gpu_spec spec = {.model = SIM_GPU_TIMESLICE,
	                            .quantum_ms = 1.0};
	uint32_t caps[] = {3};
	struct sim_gpu g;
	assert_true(sim_gpu_init(&g, &spec, 1, caps));
	assert_int_equal(sim_gpu_submit(&g, 0, 0, US(300)), US(300));
	assert_int_equal(sim_gpu_submit(&g, US(100), 0, US(400)), -1);
	assert_int_equal(sim_gpu_submit(&g, US(200), 0, US(500)), -1);
	struct sim_gpu_done done;
	int64_t next;
	/* Jobs run back to back within the quantum, in order. */
	assert_true(sim_gpu_event(&g, US(300), &done, &next));
	assert_int_equal(done.submit_ns, 0);
	assert_int_equal(next, US(700));
	assert_true(sim_gpu_event(&g, US(700), &done, &next));
	assert_int_equal(done.submit_ns, US(100));
	/* 300 us of the quantum left, then a fresh one. */
	assert_int_equal(next, US(1000));
	assert_false(sim_gpu_event(&g, US(1000), &done, &next));
	assert_int_equal(next, US(1200));
	assert_true(sim_gpu_event(&g, US(1200), &done, &next));
	assert_int_equal(done.submit_ns, US(200));
	assert_int_equal(next, -1);
	sim_gpu_finish(&g);
}

static void fcfs_runs_jobs_in_submission_order(void **state)
{
	struct sim_gpu_spec spec = {.model = SIM_GPU_FCFS,
	                            .quantum_ms = 1.0, /* ignored */
	                            .switch_us = 100.0};
	uint32_t caps[] = {2, 1};
	struct sim_gpu g;
	assert_true(sim_gpu_init(&g, &spec, 2, caps));
	assert_int_equal(sim_gpu_submit(&g, 0, 0, US(2000)), US(2000));
	assert_int_equal(sim_gpu_submit(&g, 0, 1, US(1000)), -1);
	assert_int_equal(sim_gpu_submit(&g, 0, 0, US(1000)), -1);
	int64_t t = US(2000);
	step(&g, &t, 0, US(2100)); /* no slicing: A's 2 ms job ran whole */
	step(&g, &t, -1, US(3100));
	step(&g, &t, 1, US(3200));
	step(&g, &t, -1, US(4200));
	step(&g, &t, 0, -1);
	assert_int_equal(sim_gpu_busy_ns(&g, US(5000)), US(4200));
	sim_gpu_finish(&g);
}

/* Budget model: the time a context has work and no budget is its gate
 * wait (sim_gpu_held_ns, the core's gate_s); running, idle or uncapped it
 * is not held. Cap 0.25 of 100-ms slots: 25 ms of budget per slot. */
static void budget_held_time(void **state)
{
	struct sim_gpu_spec spec = {.model = SIM_GPU_BUDGET,
	                            .quantum_ms = 1.0,
	                            .slot_ms = 100.0,
	                            .period_ms = 1000.0};
	uint32_t caps[] = {1, 1};
	struct sim_gpu g;
	assert_true(sim_gpu_init(&g, &spec, 2, caps));
	sim_gpu_set_cap(&g, 0, 0.25);
	/* No budget before the first refill: held from its submit. */
	assert_int_equal(sim_gpu_submit(&g, US(10000), 0, US(40000)), -1);
	/* The uncapped one runs at once and is never held. */
	assert_int_equal(sim_gpu_submit(&g, US(10000), 1, US(5000)), US(11000));
	int64_t t = US(11000);
	while (t < US(15000))
		step(&g, &t, -1, t + US(1000)); /* fresh quanta, alone */
	step(&g, &t, 1, -1); /* done; A still has no budget: idle */
	assert_int_equal(sim_gpu_held_ns(&g, 0, US(60000)), US(50000));
	assert_int_equal(sim_gpu_held_ns(&g, 1, US(60000)), 0);
	/* The refill gives 25 ms: A runs, held 90 ms in all. */
	assert_int_equal(sim_gpu_refill(&g, US(100000)), US(101000));
	t = US(101000);
	while (t < US(125000))
		step(&g, &t, -1, t + US(1000));
	/* At 125 ms its budget is spent with 15 ms of work left: held
	 * again until the next refill. */
	step(&g, &t, -1, -1);
	assert_int_equal(sim_gpu_held_ns(&g, 0, US(125000)), US(90000));
	assert_int_equal(sim_gpu_held_ns(&g, 0, US(150000)), US(115000));
	assert_int_equal(sim_gpu_refill(&g, US(200000)), US(201000));
	assert_int_equal(sim_gpu_held_ns(&g, 0, US(250000)), US(165000));
	sim_gpu_finish(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(timeslice_round_robin_with_switches),
	    cmocka_unit_test(timeslice_job_queue_is_fifo),
	    cmocka_unit_test(fcfs_runs_jobs_in_submission_order),
	    cmocka_unit_test(budget_held_time),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
