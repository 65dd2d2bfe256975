/* The event heap pops in (time, sequence) order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "sim/engine/heap.h"
#include "sim/engine/rng.h"

static void random_pushes_pop_in_order(void **state)
{
	struct sim_heap h;
	struct sim_rng r;
	sim_rng_seed(&r, 42);
	assert_true(sim_heap_init(&h, 4));
	const uint32_t n = 20000;
	for (uint32_t i = 0; i < n; i++) {
		/* Few distinct times, so many ties. */
		int64_t t = (int64_t)(sim_rng_next(&r) % 500);
		assert_true(sim_heap_push(&h, t, i % 7, i));
	}
	assert_int_equal(sim_heap_size(&h), n);
	struct sim_event prev, ev;
	assert_true(sim_heap_pop(&h, &prev));
	for (uint32_t i = 1; i < n; i++) {
		assert_true(sim_heap_pop(&h, &ev));
		assert_true(ev.t_ns > prev.t_ns ||
		            (ev.t_ns == prev.t_ns && ev.seq > prev.seq));
		/* seq is the push order, which target recorded. */
		assert_int_equal(ev.seq, ev.target);
		assert_int_equal(ev.kind, ev.target % 7);
		prev = ev;
	}
	assert_false(sim_heap_pop(&h, &ev));
	sim_heap_finish(&h);
}

static void equal_times_pop_fifo(void **state)
{
	struct sim_heap h;
	assert_true(sim_heap_init(&h, 0));
	for (uint32_t i = 0; i < 100; i++)
		assert_true(sim_heap_push(&h, 5, 0, i));
	assert_true(sim_heap_push(&h, 4, 0, 1000));
	struct sim_event ev;
	assert_true(sim_heap_pop(&h, &ev));
	assert_int_equal(ev.target, 1000);
	for (uint32_t i = 0; i < 100; i++) {
		assert_true(sim_heap_pop(&h, &ev));
		assert_int_equal(ev.t_ns, 5);
		assert_int_equal(ev.target, i);
	}
	sim_heap_finish(&h);
}

/* The simulator's pattern: pop the earliest, push a few later ones. */
static void interleaved_like_a_simulation(void **state)
{
	struct sim_heap h;
	struct sim_rng r;
	sim_rng_seed(&r, 7);
	assert_true(sim_heap_init(&h, 1));
	for (uint32_t i = 0; i < 64; i++)
		assert_true(
		    sim_heap_push(&h, (int64_t)(sim_rng_next(&r) % 100), 0, i));
	int64_t now = 0;
	struct sim_event ev;
	for (int step = 0; step < 100000; step++) {
		assert_true(sim_heap_pop(&h, &ev));
		assert_true(ev.t_ns >= now);
		now = ev.t_ns;
		assert_true(sim_heap_push(
		    &h, now + (int64_t)(sim_rng_next(&r) % 100), 0, 0));
	}
	assert_int_equal(sim_heap_size(&h), 64);
	sim_heap_finish(&h);
}

/* replace_top leaves the same heap as a pop followed by a push. */
static void replace_top_is_pop_then_push(void **state)
{
	struct sim_heap a, b;
	struct sim_rng r;
	sim_rng_seed(&r, 9);
	assert_true(sim_heap_init(&a, 8));
	assert_true(sim_heap_init(&b, 8));
	for (uint32_t i = 0; i < 50; i++) {
		int64_t t = (int64_t)(sim_rng_next(&r) % 20);
		assert_true(sim_heap_push(&a, t, 0, i));
		assert_true(sim_heap_push(&b, t, 0, i));
	}
	struct sim_event ea, eb;
	for (uint32_t i = 0; i < 5000; i++) {
		/* Earlier, equal and later times than the top. */
		int64_t t = sim_heap_top(&a)->t_ns - 3 +
		            (int64_t)(sim_rng_next(&r) % 30);
		eb = *sim_heap_top(&a);
		sim_heap_replace_top(&a, t, 1, 100 + i);
		assert_true(sim_heap_pop(&b, &ea));
		assert_int_equal(ea.seq, eb.seq);
		assert_true(sim_heap_push(&b, t, 1, 100 + i));
	}
	while (sim_heap_pop(&a, &ea)) {
		assert_true(sim_heap_pop(&b, &eb));
		assert_int_equal(ea.t_ns, eb.t_ns);
		assert_int_equal(ea.seq, eb.seq);
		assert_int_equal(ea.target, eb.target);
	}
	assert_int_equal(sim_heap_size(&b), 0);
	assert_null(sim_heap_top(&a));
	sim_heap_finish(&a);
	sim_heap_finish(&b);
}

static void grows_from_small(void **state)
{
	struct sim_heap h;
	assert_true(sim_heap_init(&h, 1));
	for (int64_t i = 100000; i > 0; i--)
		assert_true(sim_heap_push(&h, i, 0, 0));
	assert_true(h.cap >= 100000);
	struct sim_event ev;
	for (int64_t i = 1; i <= 100000; i++) {
		assert_true(sim_heap_pop(&h, &ev));
		assert_int_equal(ev.t_ns, i);
	}
	assert_int_equal(sim_heap_size(&h), 0);
	sim_heap_finish(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(random_pushes_pop_in_order),
	    cmocka_unit_test(equal_times_pop_fifo),
	    cmocka_unit_test(interleaved_like_a_simulation),
	    cmocka_unit_test(replace_top_is_pop_then_push),
	    cmocka_unit_test(grows_from_small),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
