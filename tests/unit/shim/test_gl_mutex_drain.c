/* libbaton_gl.so's pthread_mutex_destroy (gl_mutex_drain.c), preloaded
 * (meson sets LD_PRELOAD=libbaton_gl.so): a mutex another thread holds is
 * destroyed only once that thread has unlocked it, within a bound; one
 * the caller holds, at once, as glibc would; with BATON_DISABLE=1, as
 * glibc would. */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

struct holder {
	pthread_mutex_t m;
	pthread_t thread;
	atomic_bool locked, released, let_go;
	long hold_ms; /* < 0: until let_go */
};

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

static void *hold(void *arg)
{
	struct holder *h = arg;
	pthread_mutex_lock(&h->m);
	atomic_store(&h->locked, true);
	if (h->hold_ms >= 0)
		sleep_ms(h->hold_ms);
	else
		while (!atomic_load(&h->let_go))
			sleep_ms(1);
	atomic_store(&h->released, true);
	pthread_mutex_unlock(&h->m);
	return NULL;
}

static void start(struct holder *h, long hold_ms)
{
	memset(h, 0, sizeof(*h));
	pthread_mutex_init(&h->m, NULL);
	h->hold_ms = hold_ms;
	assert_int_equal(pthread_create(&h->thread, NULL, hold, h), 0);
	while (!atomic_load(&h->locked))
		sleep_ms(1);
}

static void test_shim_answers_destroy(void **state)
{
	(void)state;
	Dl_info info;
	assert_true(
	    dladdr(dlsym(RTLD_DEFAULT, "pthread_mutex_destroy"), &info));
	assert_non_null(strstr(info.dli_fname, "libbaton_gl.so"));
}

static void test_unlocked_is_destroyed(void **state)
{
	(void)state;
	pthread_mutex_t m;
	pthread_mutex_init(&m, NULL);
	assert_int_equal(pthread_mutex_destroy(&m), 0);
}

/* The holder sleeps 20 ms with it; the destroy waits for its unlock. */
static void test_waits_for_the_holder(void **state)
{
	(void)state;
	struct holder h;
	start(&h, 20);
	assert_int_equal(pthread_mutex_destroy(&h.m), 0);
	assert_true(atomic_load(&h.released));
	pthread_join(h.thread, NULL);
}

/* Held past the bound: the destroy gives up and answers as glibc does,
 * the holder still in its critical section. */
static void test_gives_up_after_the_bound(void **state)
{
	(void)state;
	struct holder h;
	start(&h, -1);
	assert_int_equal(pthread_mutex_destroy(&h.m), EBUSY);
	assert_false(atomic_load(&h.released));
	atomic_store(&h.let_go, true);
	pthread_join(h.thread, NULL);
	assert_int_equal(pthread_mutex_destroy(&h.m), 0);
}

static void test_own_lock_is_not_waited_for(void **state)
{
	(void)state;
	pthread_mutex_t m;
	pthread_mutex_init(&m, NULL);
	pthread_mutex_lock(&m);
	assert_int_equal(pthread_mutex_destroy(&m), EBUSY);
	pthread_mutex_unlock(&m);
	assert_int_equal(pthread_mutex_destroy(&m), 0);
}

/* BATON_DISABLE=1, read at the first destroy, so in a fresh child: glibc's
 * answer while the holder sleeps. */
static void test_disabled_passes_through(void **state)
{
	(void)state;
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		setenv("BATON_DISABLE", "1", 1);
		struct holder h;
		start(&h, 200);
		int r = pthread_mutex_destroy(&h.m);
		bool released = atomic_load(&h.released);
		pthread_join(h.thread, NULL);
		_exit(r == EBUSY && !released ? 0 : 1);
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_disabled_passes_through),
	    cmocka_unit_test(test_shim_answers_destroy),
	    cmocka_unit_test(test_unlocked_is_destroyed),
	    cmocka_unit_test(test_waits_for_the_holder),
	    cmocka_unit_test(test_gives_up_after_the_bound),
	    cmocka_unit_test(test_own_lock_is_not_waited_for),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
