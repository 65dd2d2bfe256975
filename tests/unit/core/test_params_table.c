/* The parameter table (core/params_table.h): its entries are sound and
 * docs/parameters.md is what it generates. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/params_table.h"

static const char *doc_path; /* argv[1]: docs/parameters.md */

static void test_defaults_lie_in_their_ranges(void **state)
{
	(void)state;
	size_t n;
	const struct core_param *t = core_param_table(&n);
	assert_true(n > 40);
	for (size_t i = 0; i < n; i++) {
		if (!core_param_in_range(&t[i], core_param_default(&t[i])))
			fail_msg("%s: default %g outside its range", t[i].key,
			         core_param_default(&t[i]));
		assert_non_null(t[i].meaning);
		assert_true(t[i].meaning[0] != '\0');
	}
}

/* One name per parameter: no key or old key is used twice, in any
 * group. */
static void test_names_are_unique(void **state)
{
	(void)state;
	size_t n;
	const struct core_param *t = core_param_table(&n);
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++) {
			const char *a[] = {t[i].key, t[i].old_key};
			const char *b[] = {t[j].key, t[j].old_key};
			for (int x = 0; x < 2; x++)
				for (int y = 0; y < 2; y++) {
					if (!a[x] || !b[y] ||
					    (i == j && x == y))
						continue;
					if (strcmp(a[x], b[y]) == 0)
						fail_msg("%s given twice",
						         a[x]);
				}
		}
}

static void test_old_key_finds_the_new_entry(void **state)
{
	(void)state;
	bool old = false;
	const struct core_param *p =
	    core_param_find(CORE_PARAM_POLICY, "u_over", &old);
	assert_non_null(p);
	assert_string_equal(p->key, "cap_u_over");
	assert_true(old);
	assert_ptr_equal(core_param_find(CORE_PARAM_POLICY, "cap_u_over", &old),
	                 p);
	assert_false(old);
	assert_null(core_param_find(CORE_PARAM_HARVEST, "cap_u_over", NULL));
	assert_null(core_param_find(CORE_PARAM_POLICY, "nonsense", NULL));
}

static void test_range_error_names_key_value_range(void **state)
{
	(void)state;
	const struct core_param *p =
	    core_param_find(CORE_PARAM_POLICY, "max_ratio", NULL);
	assert_non_null(p);
	assert_true(core_param_in_range(p, 1000));
	assert_false(core_param_in_range(p, 1));
	assert_false(core_param_in_range(p, 1001));
	char why[128];
	core_param_range_error(p, "1001", why, sizeof(why));
	assert_string_equal(why, "must be a number in (1, 1000], not 1001");
	p = core_param_find(CORE_PARAM_POLICY, "cap_run", NULL);
	assert_false(core_param_in_range(p, 2.5));
}

static void test_set_and_get_in_the_keys_unit(void **state)
{
	(void)state;
	struct core_harvest_params h = core_harvest_params_default();
	const struct core_param *p =
	    core_param_find(CORE_PARAM_HARVEST, "stuck_ms", NULL);
	core_param_set(p, &h, 250);
	assert_true(h.stuck_slack_s == 0.25);
	assert_true(core_param_get(p, &h) == 250);
	struct core_params c = core_params_default();
	p = core_param_find(CORE_PARAM_POLICY, "quality_warn_epochs", NULL);
	core_param_set(p, &c, 7);
	assert_int_equal(c.quality.warn_epochs, 7);
}

/* docs/parameters.md is generated; regenerate it with
 * build/tools/params_doc > docs/parameters.md */
static void test_docs_page_matches_the_table(void **state)
{
	(void)state;
	size_t need = core_param_markdown(NULL, 0) + 1;
	char *want = malloc(need);
	assert_non_null(want);
	core_param_markdown(want, need);
	FILE *f = fopen(doc_path, "r");
	assert_non_null(f);
	char *have = calloc(1, need + 1);
	assert_non_null(have);
	size_t got = fread(have, 1, need, f);
	fclose(f);
	if (got != need - 1 || memcmp(have, want, got) != 0)
		fail_msg(
		    "%s differs from the table: run build/tools/params_doc "
		    "> docs/parameters.md",
		    doc_path);
	free(have);
	free(want);
}

int main(int argc, char **argv)
{
	doc_path = argc > 1 ? argv[1] : "docs/parameters.md";
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_defaults_lie_in_their_ranges),
	    cmocka_unit_test(test_names_are_unique),
	    cmocka_unit_test(test_old_key_finds_the_new_entry),
	    cmocka_unit_test(test_range_error_names_key_value_range),
	    cmocka_unit_test(test_set_and_get_in_the_keys_unit),
	    cmocka_unit_test(test_docs_page_matches_the_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
