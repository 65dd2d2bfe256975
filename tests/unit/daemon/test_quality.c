/* batond's reader of a game's quality area (daemon/quality/quality.h): hostile
 * declarations refused by field, the seqlock'd sums turned into per-frame
 * means, torn and backwards reads keeping the last epoch, and the level
 * the control block gets. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "daemon/quality/quality.h"

static char err[128];

/* What the SDK writes for "arena": 3 levels, 2 types. */
static void declare(struct baton_quality *a)
{
	memset(a, 0, sizeof(*a));
	strcpy(a->game_id, "arena");
	a->n_levels = 3;
	a->default_level = 1;
	strcpy(a->level_names[0], "low");
	strcpy(a->level_names[1], "medium");
	strcpy(a->level_names[2], "high");
	a->n_types = 2;
	a->types[0] = (struct baton_quality_type){.id = 1, .vertices = 24};
	a->types[1] = (struct baton_quality_type){.id = 2, .vertices = 12000};
	atomic_store(&a->decl_seq, 1u);
}

static void frames(struct baton_quality *a, uint64_t n, uint32_t act0,
                   uint32_t act1, uint32_t pot0, uint32_t pot1)
{
	a->frames += n;
	a->active_sum[0] += n * act0;
	a->active_sum[1] += n * act1;
	a->potential_sum[0] += n * pot0;
	a->potential_sum[1] += n * pot1;
}

static void test_declared_and_means(void **state)
{
	(void)state;
	static struct baton_quality a;
	struct daemon_quality q;
	daemon_quality_init(&q);
	memset(&a, 0, sizeof(a));
	/* Nothing until decl_seq is 1, whatever else is there. */
	assert_int_equal(daemon_quality_tick(&q, &a, err, sizeof(err)),
	                 DAEMON_QUALITY_NONE);
	assert_false(q.declared);
	assert_int_equal(daemon_quality_tick(&q, NULL, err, sizeof(err)),
	                 DAEMON_QUALITY_NONE);
	declare(&a);
	frames(&a, 10, 5, 1, 9, 2); /* before the first tick: the base */
	assert_int_equal(daemon_quality_tick(&q, &a, err, sizeof(err)),
	                 DAEMON_QUALITY_DECLARED);
	assert_true(q.declared);
	assert_string_equal(q.level_names[2], "high");
	assert_int_equal(q.epoch_frames, 0);
	/* 60 frames: 40 at (4, 2) and 20 at (10, 5); means 6 and 3. */
	frames(&a, 40, 4, 2, 8, 4);
	frames(&a, 20, 10, 5, 11, 6);
	assert_int_equal(daemon_quality_tick(&q, &a, err, sizeof(err)),
	                 DAEMON_QUALITY_NONE);
	assert_int_equal(q.epoch_frames, 60);
	assert_float_equal(q.active_mean[0], 6.0, 1e-12);
	assert_float_equal(q.active_mean[1], 3.0, 1e-12);
	assert_float_equal(q.potential_mean[0], 9.0, 1e-12);
	assert_float_equal(q.potential_mean[1], 14.0 / 3.0, 1e-12);

	/* A write under way (odd seq): the last epoch's means stand. */
	atomic_store(&a.obj_seq, 1u);
	frames(&a, 5, 100, 100, 100, 100);
	daemon_quality_tick(&q, &a, err, sizeof(err));
	assert_float_equal(q.active_mean[0], 6.0, 1e-12);
	atomic_store(&a.obj_seq, 2u);
	/* The writer finished: the epoch covers those frames too. */
	daemon_quality_tick(&q, &a, err, sizeof(err));
	assert_int_equal(q.epoch_frames, 5);
	assert_float_equal(q.active_mean[1], 100.0, 1e-12);

	/* Backwards: kept, and the next epoch counts from there. */
	a.active_sum[0] -= 1000;
	frames(&a, 10, 1, 1, 1, 1);
	daemon_quality_tick(&q, &a, err, sizeof(err));
	assert_float_equal(q.active_mean[1], 100.0, 1e-12);
	frames(&a, 4, 2, 3, 4, 5);
	daemon_quality_tick(&q, &a, err, sizeof(err));
	assert_int_equal(q.epoch_frames, 4);
	assert_float_equal(q.active_mean[1], 3.0, 1e-12);

	/* Too many frames, or more per frame than a uint32: kept. */
	a.frames += DAEMON_QUALITY_MAX_EPOCH_FRAMES + 1;
	daemon_quality_tick(&q, &a, err, sizeof(err));
	assert_int_equal(q.epoch_frames, 4);
	a.frames += 1;
	a.active_sum[0] += (uint64_t)UINT32_MAX + 1u;
	daemon_quality_tick(&q, &a, err, sizeof(err));
	assert_float_equal(q.active_mean[0], 2.0, 1e-12);
	/* The epoch after a refused one counts from it. */
	frames(&a, 2, 7, 7, 7, 7);
	daemon_quality_tick(&q, &a, err, sizeof(err));
	assert_float_equal(q.active_mean[0], 7.0, 1e-12);

	/* Declarations rewritten later are not read again. */
	a.n_levels = 200;
	daemon_quality_tick(&q, &a, err, sizeof(err));
	assert_int_equal(q.n_levels, 3);
	/* The level the game reports, if it is one. */
	a.level_in_use = 2;
	daemon_quality_tick(&q, &a, err, sizeof(err));
	assert_int_equal(q.level_in_use, 2);
	a.level_in_use = 9;
	daemon_quality_tick(&q, &a, err, sizeof(err));
	assert_int_equal(q.level_in_use, 2);
}

/* Each field wrong in turn: refused, named, never read again. */
static void test_hostile_declarations(void **state)
{
	(void)state;
	static struct baton_quality a;
	const char *fields[] = {"game_id",     "game_id",       "n_levels",
	                        "n_levels",    "default_level", "n_types",
	                        "n_types",     "level_names",   "level_names",
	                        "level_names", "types"};
	for (size_t k = 0; k < sizeof(fields) / sizeof(fields[0]); k++) {
		declare(&a);
		switch (k) {
		case 0: /* no NUL within the field */
			memset(a.game_id, 'a', sizeof(a.game_id));
			break;
		case 1:
			strcpy(a.game_id, "../etc");
			break;
		case 2:
			a.n_levels = 0;
			break;
		case 3:
			a.n_levels = 9;
			break;
		case 4:
			a.default_level = 3;
			break;
		case 5:
			a.n_types = 0;
			break;
		case 6:
			a.n_types = 257;
			break;
		case 7:
			a.level_names[1][0] = '\0';
			break;
		case 8:
			a.level_names[2][0] = '\n';
			break;
		case 9:
			memset(a.level_names[0], 'x', sizeof(a.level_names[0]));
			break;
		case 10:
			a.types[1].id = 1;
			break;
		}
		struct daemon_quality q;
		daemon_quality_init(&q);
		err[0] = '\0';
		assert_int_equal(daemon_quality_tick(&q, &a, err, sizeof(err)),
		                 DAEMON_QUALITY_REJECTED);
		if (!strstr(err, fields[k]))
			fail_msg("case %zu: expected %s in \"%s\"", k,
			         fields[k], err);
		assert_false(q.declared);
		declare(&a); /* fixed afterwards: still ignored */
		assert_int_equal(daemon_quality_tick(&q, &a, err, sizeof(err)),
		                 DAEMON_QUALITY_NONE);
		assert_false(q.declared);
		assert_int_equal(daemon_quality_control_level(&q), 0);
		assert_false(daemon_quality_pin(&q, 0));
	}
}

static void test_level_written(void **state)
{
	(void)state;
	static struct baton_quality a;
	struct daemon_quality q;
	daemon_quality_init(&q);
	/* Undeclared: nothing to pin or choose. */
	assert_false(daemon_quality_pin(&q, 0));
	assert_false(daemon_quality_choose(&q, 0));
	assert_int_equal(daemon_quality_control_level(&q), 0);
	declare(&a);
	daemon_quality_tick(&q, &a, err, sizeof(err));
	assert_int_equal(daemon_quality_control_level(&q), 0); /* default */
	assert_true(daemon_quality_choose(&q, 2));
	assert_int_equal(daemon_quality_control_level(&q), 3);
	assert_true(daemon_quality_pin(&q, 0));
	assert_int_equal(daemon_quality_control_level(&q), 1); /* the pin */
	assert_false(daemon_quality_pin(&q, 3));
	assert_false(daemon_quality_pin(&q, -2));
	assert_int_equal(q.pinned, 0);
	assert_true(daemon_quality_pin(&q, -1));
	assert_int_equal(daemon_quality_control_level(&q), 3);
	assert_true(daemon_quality_choose(&q, -1));
	assert_int_equal(daemon_quality_control_level(&q), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_declared_and_means),
	    cmocka_unit_test(test_hostile_declarations),
	    cmocka_unit_test(test_level_written),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
