/* The GPU-time budget gate (core/gate.h) on a fake clock: the bucket's
 * arithmetic, debt carried past the 1-s period, bounded credit, caps
 * changed at run time, and over 10 simulated seconds the share a
 * saturating tenant gets, alone for caps 0.1 to 0.9 and two of them capped
 * 10:90 on one GPU. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/gate.h"

#define MS 1000000LL
#define S  1000000000LL

static void test_cap_validation(void **state)
{
	(void)state;
	assert_true(core_gate_cap_valid(0.0));
	assert_true(core_gate_cap_valid(0.25));
	assert_true(core_gate_cap_valid(1.0));
	assert_false(core_gate_cap_valid(-0.1));
	assert_false(core_gate_cap_valid(1.0001));
	assert_false(core_gate_cap_valid(NAN));
	assert_false(core_gate_cap_valid(INFINITY));

	struct core_gate g;
	core_gate_init(&g, NAN);
	assert_true(g.cap == 0.0);
	core_gate_init(&g, 0.5);
	assert_false(core_gate_set_cap(&g, 0, 2.0));
	assert_false(core_gate_set_cap(&g, 0, NAN));
	assert_true(g.cap == 0.5);
}

/* A second cap lowers the first, never raises it; none leaves it. */
static void test_cap_tighter(void **state)
{
	(void)state;
	assert_true(core_gate_cap_tighter(0.5, 0.25) == 0.25);
	assert_true(core_gate_cap_tighter(0.25, 0.5) == 0.25);
	assert_true(core_gate_cap_tighter(0.0, 0.5) == 0.5);
	assert_true(core_gate_cap_tighter(0.5, 0.0) == 0.5);
	assert_true(core_gate_cap_tighter(0.0, 0.0) == 0.0);
	assert_true(core_gate_cap_tighter(0.5, -1.0) == 0.5);
	assert_true(core_gate_cap_tighter(0.5, NAN) == 0.5);
}

static void test_no_cap_never_waits(void **state)
{
	(void)state;
	struct core_gate g = {0};
	core_gate_charge(&g, 0, 900 * MS);
	assert_int_equal(core_gate_open_at(&g, 5), 5);
	core_gate_init(&g, 0.0);
	core_gate_charge(&g, 10, 900 * MS);
	assert_int_equal(core_gate_open_at(&g, 20), 20);
}

/* A frame may present while the bucket is not in debt; a charge puts it
 * in debt and the next frame waits cost / cap. */
static void test_waits_until_the_debt_is_paid(void **state)
{
	(void)state;
	struct core_gate g;
	core_gate_init(&g, 0.25);
	assert_int_equal(core_gate_open_at(&g, 1 * S), 1 * S);
	core_gate_charge(&g, 1 * S, 10 * MS);
	assert_int_equal(core_gate_open_at(&g, 1 * S), 1 * S + 40 * MS);
	/* Half-way the debt is half paid. */
	assert_int_equal(core_gate_open_at(&g, 1 * S + 20 * MS),
	                 1 * S + 40 * MS);
	assert_int_equal(core_gate_open_at(&g, 1 * S + 40 * MS),
	                 1 * S + 40 * MS);
	/* A charge that arrives late still counts. */
	core_gate_charge(&g, 1 * S + 50 * MS, 5 * MS);
	/* 2.5 ms of credit at 1.05 s, 2.5 ms of debt after, paid in 10. */
	assert_int_equal(core_gate_open_at(&g, 1 * S + 50 * MS),
	                 1 * S + 60 * MS);
}

/* A frame longer than the 100-ms slot, even than the 1-s period: the debt
 * is not forgiven at a slot or period boundary (gOver's is), so the next
 * frame waits the whole cost over the cap. */
static void test_debt_carries_across_the_period(void **state)
{
	(void)state;
	struct core_gate g;
	core_gate_init(&g, 0.25);
	core_gate_open_at(&g, 0);
	core_gate_charge(&g, 0, 800 * MS); /* 3.2 s at a quarter of a GPU */
	assert_int_equal(core_gate_open_at(&g, 0), 3200 * MS);
	assert_int_equal(core_gate_open_at(&g, 1 * S), 3200 * MS);
	assert_int_equal(core_gate_open_at(&g, 3 * S), 3200 * MS);
	/* Two overruns add up. */
	core_gate_charge(&g, 3 * S, 300 * MS);
	assert_int_equal(core_gate_open_at(&g, 3 * S), 4400 * MS);
	/* Debt is bounded at one period of GPU time: a bogus 9-s report
	 * costs 1 s / cap, not 36 s. */
	core_gate_init(&g, 0.25);
	core_gate_charge(&g, 0, 9 * S);
	assert_int_equal(core_gate_open_at(&g, 0), 4 * S);
}

/* An idle tenant banks at most one slot's budget: after 5 s idle it may
 * spend one frame and cap x 100 ms at once, and the frame after that waits. */
static void test_credit_is_one_slot(void **state)
{
	(void)state;
	struct core_gate g;
	core_gate_init(&g, 0.5);
	core_gate_open_at(&g, 0);
	int64_t now = 5 * S, spent = 0;
	int frames = 0;
	while (core_gate_open_at(&g, now) == now) {
		core_gate_charge(&g, now, 10 * MS);
		spent += 10 * MS;
		frames++;
		assert_true(frames < 100);
	}
	/* The first frame is paid from the idle time (its charge leaves the
	 * bucket at the bound), then 50 ms of credit: five 10-ms frames
	 * spend it, a seventh presents on the empty bucket (not in debt)
	 * and the eighth waits. */
	assert_int_equal(frames, 7);
	assert_int_equal(spent, 70 * MS);
}

static void test_set_cap_at_run_time(void **state)
{
	(void)state;
	struct core_gate g;
	core_gate_init(&g, 0.5);
	core_gate_open_at(&g, 0);
	core_gate_charge(&g, 0, 100 * MS);
	/* 100 ms into the 200-ms wait at 0.5: 50 ms of debt left, paid at
	 * 0.25 in 200 ms. */
	assert_true(core_gate_set_cap(&g, 100 * MS, 0.25));
	assert_int_equal(core_gate_open_at(&g, 100 * MS), 300 * MS);
	/* Credit above the new, smaller bound is cut. */
	core_gate_init(&g, 1.0);
	core_gate_open_at(&g, 0);
	assert_true(core_gate_set_cap(&g, 1 * S, 0.1)); /* 100 ms banked */
	core_gate_charge(&g, 1 * S, 10 * MS + 1);       /* credit: 10 ms */
	assert_int_equal(core_gate_open_at(&g, 1 * S), 1 * S + 10);
	/* Removing the cap opens the gate and forgets the debt; setting one
	 * again starts empty. */
	core_gate_charge(&g, 1 * S, 500 * MS);
	assert_true(core_gate_set_cap(&g, 1 * S, 0.0));
	assert_int_equal(core_gate_open_at(&g, 1 * S), 1 * S);
	assert_true(core_gate_set_cap(&g, 2 * S, 0.5));
	assert_int_equal(core_gate_open_at(&g, 2 * S), 2 * S);
	core_gate_charge(&g, 2 * S, 10 * MS);
	assert_int_equal(core_gate_open_at(&g, 2 * S), 2 * S + 20 * MS);
}

/* A fake GPU in steps of 10 us: FIFO over the tenants' submitted frames.
 * Each tenant always has work: a CPU phase, then it presents as soon as
 * its gate opens and it has fewer than two frames in flight; the GPU
 * runs the frame for its cost (jittered +-50 %, deterministic), and the
 * cost is charged when the frame completes, plus `lag` steps (the
 * read-back of a timer query). Returns each tenant's GPU busy share over
 * `seconds`. */
#define STEP  (10 * 1000LL)
#define MAX_T 2
#define QLEN  (2 * MAX_T)

struct tenant {
	struct core_gate gate;
	int64_t cost, cpu, ready;
	int in_flight;
	int64_t busy;
	/* charges waiting for their read-back: (when, cost) */
	int64_t charge_at[4], charge_ns[4];
	int n_charges;
};

static uint64_t rng = 88172645463325252ULL;
static int64_t jitter(int64_t mean)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	/* mean x [0.5, 1.5) */
	return mean / 2 + (int64_t)(rng % (uint64_t)mean);
}

static void simulate(struct tenant *t, int n, double seconds, int64_t lag)
{
	struct {
		int who;
		int64_t left, cost;
	} q[QLEN];
	int qn = 0;
	int64_t end = (int64_t)(seconds * S);
	for (int64_t now = 0; now < end; now += STEP) {
		for (int i = 0; i < n; i++) {
			struct tenant *x = &t[i];
			for (int c = 0; c < x->n_charges;) {
				if (x->charge_at[c] > now) {
					c++;
					continue;
				}
				core_gate_charge(&x->gate, now,
				                 x->charge_ns[c]);
				x->charge_at[c] = x->charge_at[--x->n_charges];
				x->charge_ns[c] = x->charge_ns[x->n_charges];
			}
			if (now >= x->ready && x->in_flight < 2 &&
			    core_gate_open_at(&x->gate, now) <= now) {
				int64_t c = jitter(x->cost);
				q[qn].who = i;
				q[qn].left = c;
				q[qn].cost = c;
				qn++;
				x->in_flight++;
				x->ready = now + x->cpu;
			}
		}
		if (qn == 0)
			continue;
		struct tenant *x = &t[q[0].who];
		x->busy += STEP;
		q[0].left -= STEP;
		if (q[0].left <= 0) {
			x->in_flight--;
			x->charge_at[x->n_charges] = now + lag;
			x->charge_ns[x->n_charges] = q[0].cost;
			x->n_charges++;
			assert_true(x->n_charges < 4);
			for (int j = 1; j < qn; j++)
				q[j - 1] = q[j];
			qn--;
		}
	}
}

static void test_share_matches_the_cap(void **state)
{
	(void)state;
	for (int k = 1; k <= 9; k++) {
		double cap = k / 10.0;
		struct tenant t = {.cost = 6 * MS, .cpu = 1 * MS};
		core_gate_init(&t.gate, cap);
		simulate(&t, 1, 10.0, 3 * MS);
		double share = (double)t.busy / (10.0 * S);
		print_message("cap %.2f: share %.4f\n", cap, share);
		/* What is not yet charged at the end (two frames in flight,
		 * 9 ms at most each) and the first frame, free: well under
		 * half a point over 10 s. */
		assert_true(fabs(share - cap) < 0.005);
	}
	/* Uncapped, the same tenant takes the whole GPU: the cap is what
	 * held it. */
	struct tenant t = {.cost = 6 * MS, .cpu = 1 * MS};
	simulate(&t, 1, 10.0, 3 * MS);
	assert_true((double)t.busy / (10.0 * S) > 0.99);
}

/* Two tenants that would each take the whole GPU, capped 10:90. */
static void test_two_tenants_10_90(void **state)
{
	(void)state;
	struct tenant t[2] = {
	    {.cost = 4 * MS, .cpu = 1 * MS},
	    {.cost = 7 * MS, .cpu = 2 * MS},
	};
	core_gate_init(&t[0].gate, 0.1);
	core_gate_init(&t[1].gate, 0.9);
	simulate(t, 2, 10.0, 2 * MS);
	double a = (double)t[0].busy / (10.0 * S);
	double b = (double)t[1].busy / (10.0 * S);
	print_message("10:90 -> %.4f : %.4f\n", a, b);
	assert_true(fabs(a - 0.1) < 0.005);
	assert_true(fabs(b - 0.9) < 0.01);
	/* Uncapped, FIFO shares go by frame cost, nowhere near 10:90. */
	struct tenant u[2] = {
	    {.cost = 4 * MS, .cpu = 1 * MS},
	    {.cost = 7 * MS, .cpu = 2 * MS},
	};
	simulate(u, 2, 10.0, 2 * MS);
	assert_true((double)u[0].busy / (10.0 * S) > 0.3);
}

/* Frames longer than a slot, as a software rasterizer's heavy scene
 * draws them: each costs cost_ns of the device and takes cost_ns / speed
 * of wall time to draw (speed < 1: contention, the frame gets part of the
 * device), charged at the next frame's start, as the shim does. The share
 * the tenant gets over 20 s of such frames. */
static double long_frame_share(double cap, int64_t cost_ns, double speed)
{
	struct core_gate g;
	core_gate_init(&g, cap);
	int64_t now = 0, spent = 0;
	core_gate_open_at(&g, now);
	while (now < 20 * S) {
		now += (int64_t)((double)cost_ns / speed); /* drawing */
		spent += cost_ns;
		core_gate_charge(&g, now, cost_ns);
		now = core_gate_open_at(&g, now); /* the gate's wait */
	}
	return (double)spent / (double)now;
}

/* A frame longer than a slot gets the cap, however long contention makes
 * it: the refill while it is drawn is its budget, not credit to cut. */
static void test_long_frames_get_the_cap(void **state)
{
	(void)state;
	double speeds[] = {1.0, 0.5, 0.3};
	for (size_t i = 0; i < sizeof(speeds) / sizeof(speeds[0]); i++) {
		double share = long_frame_share(0.3, 200 * MS, speeds[i]);
		print_message("cap 0.30, 200-ms frames at speed %.1f: %.4f\n",
		              speeds[i], share);
		assert_true(fabs(share - 0.3) < 0.003);
	}
	/* A frame that needs more than the cap gets the cap too. */
	assert_true(fabs(long_frame_share(0.3, 50 * MS, 0.2) - 0.2) < 0.003);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cap_validation),
	    cmocka_unit_test(test_cap_tighter),
	    cmocka_unit_test(test_no_cap_never_waits),
	    cmocka_unit_test(test_waits_until_the_debt_is_paid),
	    cmocka_unit_test(test_debt_carries_across_the_period),
	    cmocka_unit_test(test_credit_is_one_slot),
	    cmocka_unit_test(test_set_cap_at_run_time),
	    cmocka_unit_test(test_share_matches_the_cap),
	    cmocka_unit_test(test_two_tenants_10_90),
	    cmocka_unit_test(test_long_frames_get_the_cap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
