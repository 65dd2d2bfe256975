/* pthread_mutex_destroy, interposed by the preload: a mutex that another
 * thread still holds is waited for (at most DRAIN_WAIT_MS) before it is
 * destroyed, so that the memory the caller frees next is no longer in the
 * holder's hands.
 *
 * Why: Mesa's llvmpipe (GL on a machine without a GPU; seen with Mesa
 * 22.3, and later Mesa's lp_fence.c reads the count the same way) frees a
 * fence while the rasterizer thread that signalled it may still be inside
 * the fence's critical section. The thread counts the fence done under the
 * fence's mutex, then broadcasts and unlocks; the render thread reads the
 * count without the mutex (lp_fence_signalled), drops its references and
 * destroys and frees the fence (mtx_destroy answers EBUSY, unheeded). The
 * unlock then writes freed memory: glibc stores 0 into the lock word, the
 * owner and the user count. When the freed block has meanwhile joined
 * malloc's free lists, that 0 is the low half of a list pointer, and the
 * next malloc reads through it and faults at an address like
 * 0x55df00000010. The window is a few instructions, but a machine with
 * more threads than cores (what Baton makes of it) deschedules a thread
 * inside it now and then: an arena instance at 1.6 FPS under contention
 * died that way. docs/shim.md, "Mutexes destroyed while held", has the
 * probe that holds the window open and the measurements.
 *
 * Destroying a mutex that another thread holds is undefined in POSIX.
 * Taking it first and releasing it is always allowed, and once we have
 * it the holder's unlock has released the lock word, after which glibc
 * touches the mutex no more (its futex wake uses the address as a key
 * only). A mutex the caller holds itself is destroyed as before (glibc
 * answers EBUSY); so is one still held after the wait, with a warning. */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include "shim/gl/gl_hooks.h"
#include "shim/gl/gl_real.h"
#include "shim/shim.h"
#include "shim/shim_config.h"

/* Longer than any time a runnable thread waits for a core on a machine
 * shared by a few dozen threads, short enough that a program destroying a
 * mutex held forever is not held up for long. */
#define DRAIN_WAIT_MS 250

typedef int (*destroy_fn)(pthread_mutex_t *);

static destroy_fn next_destroy(void)
{
	static _Atomic(destroy_fn) next;
	destroy_fn f = atomic_load_explicit(&next, memory_order_acquire);
	if (!f) {
		/* The next definition after ours: libc's, or another
		 * preload's that comes after us in LD_PRELOAD. */
		gl_dlsym_fn real_dlsym = gl_real_dlsym();
		if (real_dlsym)
			f = (destroy_fn)real_dlsym(RTLD_NEXT,
			                           "pthread_mutex_destroy");
		atomic_store_explicit(&next, f, memory_order_release);
	}
	return f;
}

static bool drain_enabled(void)
{
	static _Atomic int enabled = -1;
	int e = atomic_load_explicit(&enabled, memory_order_relaxed);
	if (e < 0) {
		e = !shim_disabled_by_env();
		atomic_store_explicit(&enabled, e, memory_order_relaxed);
	}
	return e;
}

static bool held_by_caller(const pthread_mutex_t *m)
{
#ifdef __GLIBC__
	/* glibc's public layout (bits/struct_mutex.h) names the owner. */
	return __atomic_load_n(&m->__data.__owner, __ATOMIC_RELAXED) ==
	       gettid();
#else
	(void)m;
	return true; /* unknown: do as the C library would */
#endif
}

/* Returns once nobody else holds m, or after DRAIN_WAIT_MS. */
static void drain(pthread_mutex_t *m)
{
	int r = pthread_mutex_trylock(m);
	if (r == 0 || r == EOWNERDEAD) {
		pthread_mutex_unlock(m);
		return;
	}
	if (r != EBUSY || held_by_caller(m))
		return;
	struct timespec until;
	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_nsec += DRAIN_WAIT_MS * 1000000L;
	until.tv_sec += until.tv_nsec / 1000000000L;
	until.tv_nsec %= 1000000000L;
	r = pthread_mutex_clocklock(m, CLOCK_MONOTONIC, &until);
	if (r == 0 || r == EOWNERDEAD) {
		pthread_mutex_unlock(m);
		return;
	}
	static atomic_flag warned = ATOMIC_FLAG_INIT;
	if (!atomic_flag_test_and_set(&warned))
		shim_log(SHIM_LOG_WARN,
		         "a mutex destroyed while another thread held it was "
		         "still held after %d ms; destroyed anyway",
		         DRAIN_WAIT_MS);
}

int pthread_mutex_destroy(pthread_mutex_t *m)
{
	destroy_fn f = next_destroy();
	if (!f)
		return EINVAL; /* no C library behind us: cannot happen */
	if (drain_enabled())
		drain(m);
	return f(m);
}
