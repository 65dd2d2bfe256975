/* A test preload that provokes and counts Mesa llvmpipe's fence race
 * (docs/shim.md, "Mutexes destroyed while held"): a rasterizer thread
 * counts a fence done under the fence's mutex, the render thread reads
 * the count without it, and may free the fence before the rasterizer
 * thread has unlocked.
 *
 * - pthread_cond_broadcast, on a thread named "llvmpipe-N": sleeps
 *   BATON_PROBE_DELAY_US first. llvmpipe broadcasts between counting the
 *   fence and unlocking it, so this holds the window open.
 * - pthread_mutex_destroy: counts the destroys, those that found the
 *   mutex held by another thread, and those that returned with it still
 *   held (the caller frees it next: the holder's unlock then writes freed
 *   memory). It calls the next definition in the search order, the GL
 *   preload's when it comes after this one in LD_PRELOAD.
 *
 * At exit it writes "destroys=N held_at_destroy=N destroyed_while_held=N"
 * to BATON_PROBE_OUT. Test-only: never installed. */
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

typedef int (*destroy_fn)(pthread_mutex_t *);
typedef int (*broadcast_fn)(pthread_cond_t *);

static atomic_ulong destroys, held_at_destroy, destroyed_while_held;

/* The counts so far, to BATON_PROBE_OUT: at exit, and at each destroy
 * that returned with the mutex held, since the process may not live to
 * exit. */
static void report(void)
{
	const char *path = getenv("BATON_PROBE_OUT");
	int fd =
	    path ? open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)
	         : -1;
	if (fd < 0)
		return;
	char line[160];
	int n = snprintf(
	    line, sizeof(line),
	    "destroys=%lu held_at_destroy=%lu destroyed_while_held=%lu\n",
	    atomic_load(&destroys), atomic_load(&held_at_destroy),
	    atomic_load(&destroyed_while_held));
	if (n > 0 && (size_t)n < sizeof(line))
		(void)!write(fd, line, (size_t)n);
	close(fd);
}

static bool held_by_other(pthread_mutex_t *m)
{
	/* glibc's layout (bits/struct_mutex.h): the lock word, the owner's
	 * thread id. A read without the lock, as a probe may. */
	int lock = __atomic_load_n(&m->__data.__lock, __ATOMIC_ACQUIRE);
	int owner = __atomic_load_n(&m->__data.__owner, __ATOMIC_RELAXED);
	return lock != 0 && owner != gettid();
}

static long delay_us(void)
{
	static _Atomic long v = -1;
	long d = atomic_load(&v);
	if (d < 0) {
		const char *s = getenv("BATON_PROBE_DELAY_US");
		d = s ? strtol(s, NULL, 10) : 0;
		atomic_store(&v, d < 0 ? 0 : d);
	}
	return d;
}

static bool on_rasterizer_thread(void)
{
	char name[17] = "";
	prctl(PR_GET_NAME, name, 0, 0, 0);
	return strncmp(name, "llvmpipe-", 9) == 0;
}

int pthread_cond_broadcast(pthread_cond_t *c)
{
	static _Atomic(broadcast_fn) next;
	broadcast_fn f = atomic_load(&next);
	if (!f) {
		/* The version Mesa is linked against (x86-64's current
		 * condition variables). */
		f = (broadcast_fn)dlvsym(RTLD_NEXT, "pthread_cond_broadcast",
		                         "GLIBC_2.3.2");
		atomic_store(&next, f);
	}
	long d = delay_us();
	if (d > 0 && on_rasterizer_thread()) {
		struct timespec ts = {d / 1000000, (d % 1000000) * 1000};
		nanosleep(&ts, NULL);
	}
	return f(c);
}

int pthread_mutex_destroy(pthread_mutex_t *m)
{
	static _Atomic(destroy_fn) next;
	destroy_fn f = atomic_load(&next);
	if (!f) {
		f = (destroy_fn)dlsym(RTLD_NEXT, "pthread_mutex_destroy");
		atomic_store(&next, f);
	}
	atomic_fetch_add(&destroys, 1);
	if (held_by_other(m))
		atomic_fetch_add(&held_at_destroy, 1);
	int r = f(m);
	if (held_by_other(m)) {
		atomic_fetch_add(&destroyed_while_held, 1);
		report();
	}
	return r;
}

__attribute__((destructor)) static void report_at_exit(void)
{
	report();
}
