/* baton run's LD_PRELOAD entry for 64-bit and 32-bit processes alike
 * (src/cli/run_multiarch.c), on libraries laid out in a scratch folder. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/run_multiarch.h"
#include "shim/shim_paths.h"

#define NAME "libbaton_gl.so"

static char root[64];

/* root/rel, its folders made, as a file (or a link to target). */
static void make(const char *rel, const char *target)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (char *s = strchr(path + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		mkdir(path, 0755);
		*s = '/';
	}
	if (target) {
		assert_int_equal(symlink(target, path), 0);
	} else {
		FILE *f = fopen(path, "w");
		assert_non_null(f);
		fclose(f);
	}
}

static const char *entry_of(const char *rel)
{
	static char out[PATH_MAX];
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	assert_true(run_preload_entry(path, out, sizeof(out)));
	return out;
}

static void expect(const char *got, const char *rel)
{
	char want[PATH_MAX];
	snprintf(want, sizeof(want), "%s/%s", root, rel);
	assert_string_equal(got, want);
}

static int setup(void **state)
{
	snprintf(root, sizeof(root), "/tmp/baton-multiarch-XXXXXX");
	assert_non_null(mkdtemp(root));
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd);
}

/* Only this architecture's library: its own path, which names it in
 * ld.so's complaint in a process of the other. */
static void test_one_architecture_plain(void **state)
{
	make("a/" BATON_LIB_SELF "/baton/" NAME, NULL);
	expect(entry_of("a/" BATON_LIB_SELF "/baton/" NAME),
	       "a/" BATON_LIB_SELF "/baton/" NAME);
}

/* Both: one entry through $LIB, literally. */
static void test_both_architectures_through_lib(void **state)
{
	make("b/" BATON_LIB_SELF "/baton/" NAME, NULL);
	make("b/" BATON_LIB_OTHER "/baton/" NAME, NULL);
	expect(entry_of("b/" BATON_LIB_SELF "/baton/" NAME),
	       "b/$LIB/baton/" NAME);
}

/* A link keeps its name (the build tree's multiarch/ folder), a folder
 * is resolved, and a path outside the layout stays what it is. */
static void test_links_and_other_layouts(void **state)
{
	make("real/" NAME, NULL);
	make("c/" BATON_LIB_SELF "/baton/" NAME, "../../../../real/" NAME);
	make("c/" BATON_LIB_OTHER "/baton/" NAME, "../../../../real/" NAME);
	expect(entry_of("c/./" BATON_LIB_SELF "/baton/" NAME),
	       "c/$LIB/baton/" NAME);
	expect(entry_of("real/" NAME), "real/" NAME);
	/* A paired build tree whose i386 build is not built yet. */
	make("d/" BATON_LIB_SELF "/baton/" NAME, NULL);
	make("d/" BATON_LIB_OTHER "/baton/" NAME, "../../../../nothing");
	expect(entry_of("d/" BATON_LIB_SELF "/baton/" NAME),
	       "d/" BATON_LIB_SELF "/baton/" NAME);
}

static void test_missing_folder_refused(void **state)
{
	char out[PATH_MAX], path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/nowhere/%s", root, NAME);
	assert_false(run_preload_entry(path, out, sizeof(out)));
	char small[8];
	snprintf(path, sizeof(path), "%s/real/%s", root, NAME);
	assert_false(run_preload_entry(path, small, sizeof(small)));
}

int main(void)
{
	if (!*BATON_LIB_SELF || !*BATON_LIB_OTHER) {
		printf("no multiarch pair for this architecture\n");
		return 77;
	}
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_one_architecture_plain),
	    cmocka_unit_test(test_both_architectures_through_lib),
	    cmocka_unit_test(test_links_and_other_layouts),
	    cmocka_unit_test(test_missing_folder_refused),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
