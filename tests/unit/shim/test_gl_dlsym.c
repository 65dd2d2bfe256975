/* libbaton_gl.so's dlsym and GetProcAddress hooks, preloaded (meson sets
 * LD_PRELOAD=libbaton_gl.so:libgl_interposer.so). No X server needed:
 * nothing here creates a context. */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <cmocka.h>

static bool in_shim(const void *p)
{
	Dl_info info;
	if (!p || !dladdr(p, &info) || !info.dli_fname)
		return false;
	const char *base = strrchr(info.dli_fname, '/');
	return strcmp(base ? base + 1 : info.dli_fname, "libbaton_gl.so") == 0;
}

static void test_rtld_next_keeps_the_callers_view(void **state)
{
	(void)state;
	/* The interposer's getuid reaches the real one. */
	assert_int_equal(getuid(), (uid_t)syscall(SYS_getuid));
	/* From the program, the next glXSwapBuffers is the shim's, as glibc
	 * itself would answer. */
	assert_true(in_shim(dlsym(RTLD_NEXT, "glXSwapBuffers")));
}

static void test_other_names_pass_through(void **state)
{
	(void)state;
	assert_ptr_equal(dlsym(RTLD_DEFAULT, "getpid"), (void *)getpid);
	assert_null(dlsym(RTLD_DEFAULT, "baton_no_such_symbol"));
	assert_null(dlsym(RTLD_DEFAULT, "glXNoSuchFunction"));
}

static void test_handles_get_the_hooks(void **state)
{
	(void)state;
	void *gl = dlopen("libGL.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!gl)
		skip();
	void *swap = dlsym(gl, "glXSwapBuffers");
	assert_true(in_shim(swap));
	assert_ptr_equal(dlsym(RTLD_DEFAULT, "glXSwapBuffers"), swap);
	/* Not ours to hook: the library's own. */
	void *clear = dlsym(gl, "glClear");
	assert_non_null(clear);
	assert_false(in_shim(clear));
	/* Probing keeps saying no. */
	assert_null(dlsym(gl, "glXSwapBuffersNoSuch"));

	typedef void (*(*gpa_fn)(const unsigned char *))(void);
	gpa_fn gpa = (gpa_fn)dlsym(gl, "glXGetProcAddressARB");
	assert_true(in_shim((void *)gpa));
	assert_ptr_equal((void *)gpa((const unsigned char *)"glXSwapBuffers"),
	                 swap);
	void *gclear = (void *)gpa((const unsigned char *)"glClear");
	assert_non_null(gclear);
	assert_false(in_shim(gclear));
	dlclose(gl);
}

static void test_egl_handles(void **state)
{
	(void)state;
	void *egl = dlopen("libEGL.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!egl)
		skip();
	assert_true(in_shim(dlsym(egl, "eglSwapBuffers")));
	assert_true(in_shim(dlsym(egl, "eglGetProcAddress")));
	void *query = dlsym(egl, "eglQueryString");
	assert_non_null(query);
	assert_false(in_shim(query));
	dlclose(egl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rtld_next_keeps_the_callers_view),
	    cmocka_unit_test(test_other_names_pass_through),
	    cmocka_unit_test(test_handles_get_the_hooks),
	    cmocka_unit_test(test_egl_handles),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
