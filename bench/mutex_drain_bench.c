/* What the GL preload's pthread_mutex_destroy (gl_mutex_drain.c) costs a
 * program that never destroys a mutex another thread holds: init and
 * destroy of an uncontended mutex, through the preload (linked here, so it
 * answers the program's calls as when preloaded) and through the C
 * library's own, alternating in batches in one run. Prints the medians
 * (ns per init + destroy) and their ratio. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_time.h"

#define PAIRS   200000
#define BATCHES 15

typedef int (*destroy_fn)(pthread_mutex_t *);

static double batch_ns(destroy_fn destroy)
{
	pthread_mutex_t m;
	double t0 = now_s();
	for (int i = 0; i < PAIRS; i++) {
		pthread_mutex_init(&m, NULL);
		destroy(&m);
	}
	return (now_s() - t0) * 1e9 / PAIRS;
}

int main(void)
{
	void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	destroy_fn own =
	    libc ? (destroy_fn)dlsym(libc, "pthread_mutex_destroy") : NULL;
	Dl_info info;
	if (!own || !dladdr((void *)pthread_mutex_destroy, &info)) {
		fprintf(stderr, "mutex_drain_bench: cannot find the C "
		                "library's pthread_mutex_destroy\n");
		return 1;
	}
	double preload[BATCHES], plain[BATCHES];
	for (int b = 0; b < BATCHES; b++) {
		preload[b] = batch_ns(pthread_mutex_destroy);
		plain[b] = batch_ns(own);
	}
	qsort(preload, BATCHES, sizeof(double), cmp_double);
	qsort(plain, BATCHES, sizeof(double), cmp_double);
	double p = preload[BATCHES / 2], c = plain[BATCHES / 2];
	printf("init+destroy, median of %d x %d: preload (%s) %.1f ns, C "
	       "library %.1f ns, ratio %.2f\n",
	       BATCHES, PAIRS, info.dli_fname, p, c, p / c);
	return 0;
}
