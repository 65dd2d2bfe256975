/* The game SDK's quality API (include/baton/baton.h) without a shim:
 * defaults and argument checks; then attached by hand to a quality area
 * and a control block as the shim does (quality_internal.h): the
 * declarations copied in, the sums under the seqlock, the level batond
 * writes. One process, one declaration: the steps run in order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "baton/baton.h"
#include "ipc/control.h"
#include "sdk/quality_internal.h"

int baton__quality_attach_v1(struct baton_quality *q, struct baton_control *c);

static const char *levels[] = {"low", "medium", "high"};
static const struct baton_object_type types[] = {{.id = 1, .vertices = 24},
                                                 {.id = 2, .vertices = 900}};

static void test_no_shim(void **state)
{
	(void)state;
	/* Before anything: level 0, not driven, objects out of order. */
	assert_int_equal(baton_quality_level(), 0);
	assert_int_equal(baton_quality_driven(), 0);
	uint32_t n[2] = {1, 2};
	assert_int_equal(baton_frame_objects(n, n, 2), BATON_ESTATE);
	assert_int_equal(baton_objects_declare(2, types), BATON_ESTATE);

	/* Argument errors change nothing. */
	assert_int_equal(baton_quality_declare(NULL, 3, levels, 0),
	                 BATON_EINVAL);
	assert_int_equal(baton_quality_declare("", 3, levels, 0), BATON_EINVAL);
	assert_int_equal(baton_quality_declare("a/b", 3, levels, 0),
	                 BATON_EINVAL);
	assert_int_equal(baton_quality_declare(
	                     "a23456789012345678901234567890123", 3, levels, 0),
	                 BATON_EINVAL);
	assert_int_equal(baton_quality_declare("arena", 0, levels, 0),
	                 BATON_EINVAL);
	assert_int_equal(baton_quality_declare("arena", 9, levels, 0),
	                 BATON_EINVAL);
	assert_int_equal(baton_quality_declare("arena", 3, NULL, 0),
	                 BATON_EINVAL);
	assert_int_equal(baton_quality_declare("arena", 3, levels, 3),
	                 BATON_EINVAL);
	const char *bad[] = {"low", "mid\n", "high"};
	assert_int_equal(baton_quality_declare("arena", 3, bad, 0),
	                 BATON_EINVAL);
	const char *empty[] = {"low", ""};
	assert_int_equal(baton_quality_declare("arena", 2, empty, 0),
	                 BATON_EINVAL);
	assert_int_equal(baton_quality_level(), 0);

	assert_int_equal(baton_quality_declare("arena-2.v_1", 3, levels, 1),
	                 BATON_OK);
	assert_int_equal(baton_quality_declare("arena", 3, levels, 1),
	                 BATON_ESTATE);
	/* The default, without a shim. */
	assert_int_equal(baton_quality_level(), 1);

	assert_int_equal(baton_objects_declare(0, types), BATON_EINVAL);
	assert_int_equal(baton_objects_declare(257, types), BATON_EINVAL);
	assert_int_equal(baton_objects_declare(2, NULL), BATON_EINVAL);
	const struct baton_object_type dup[] = {{.id = 5}, {.id = 5}};
	assert_int_equal(baton_objects_declare(2, dup), BATON_EINVAL);
	assert_int_equal(baton_frame_objects(n, n, 2), BATON_ESTATE);
	assert_int_equal(baton_objects_declare(2, types), BATON_OK);
	assert_int_equal(baton_objects_declare(2, types), BATON_ESTATE);

	assert_int_equal(baton_frame_objects(n, n, 1), BATON_EINVAL);
	assert_int_equal(baton_frame_objects(n, n, 2), BATON_OK);
	assert_int_equal(baton_frame_objects(NULL, NULL, 2), BATON_OK);
	assert_int_equal(baton_quality_level(), 1);
	assert_int_equal(baton_quality_driven(), 0);
}

static void test_attached(void **state)
{
	(void)state;
	static struct baton_quality area;
	static struct baton_control control;
	/* Declared before the attach: copied at the attach. */
	assert_int_equal(atomic_load(&area.decl_seq), 0);
	baton__quality_attach_v1(&area, &control);
	assert_int_equal(atomic_load(&area.decl_seq), 1);
	assert_string_equal(area.game_id, "arena-2.v_1");
	assert_int_equal(area.n_levels, 3);
	assert_int_equal(area.default_level, 1);
	assert_string_equal(area.level_names[2], "high");
	assert_int_equal(area.n_types, 2);
	assert_int_equal(area.types[1].vertices, 900);

	uint32_t act[2] = {3, 4}, pot[2] = {5, 6};
	for (int i = 0; i < 10; i++)
		assert_int_equal(baton_frame_objects(act, pot, 2), BATON_OK);
	assert_int_equal(baton_frame_objects(NULL, pot, 2), BATON_OK);
	assert_int_equal(area.frames, 11);
	assert_int_equal(area.active_sum[1], 40);
	assert_int_equal(area.potential_sum[0], 55);
	assert_int_equal(atomic_load(&area.obj_seq) % 2, 0);

	/* No daemon yet: the default. batond's choice, then none again. */
	assert_int_equal(baton_quality_level(), 1);
	struct ipc_control_values v = {.flags = BATON_CONTROL_VALID,
	                               .quality_level = 3};
	ipc_control_write(&control, &v);
	assert_int_equal(baton_quality_level(), 2);
	assert_int_equal(area.level_in_use, 2);
	assert_int_equal(baton_quality_driven(), 1);
	/* Not a level: the current one stays. */
	v.quality_level = 4;
	ipc_control_write(&control, &v);
	assert_int_equal(baton_quality_level(), 2);
	/* A write under way: the current one stays. */
	v.quality_level = 1;
	ipc_control_write(&control, &v);
	atomic_fetch_add(&control.seq, 1);
	assert_int_equal(baton_quality_level(), 2);
	atomic_fetch_add(&control.seq, 1);
	assert_int_equal(baton_quality_level(), 0);
	v.quality_level = 0;
	ipc_control_write(&control, &v);
	assert_int_equal(baton_quality_level(), 1);

	/* A fork child's fresh memory gets the declarations too. */
	static struct baton_quality child;
	baton__quality_attach_v1(&child, &control);
	assert_int_equal(atomic_load(&child.decl_seq), 1);
	assert_int_equal(child.n_types, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_no_shim),
	    cmocka_unit_test(test_attached),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
