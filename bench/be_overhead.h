/* Shared by be_overhead.c (the SDK and the OpenCL gate) and
 * be_overhead_cuda.c (the CUDA gate on the stub driver). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

int64_t bo_now_ns(void);
void bo_sleep_us(int us);
/* Prints the mean, median and p99 of t[0..n) (ns) in microseconds;
 * sorts t. */
void bo_report(const char *what, int64_t *t, int n);

/* One gate's timed launch, for bo_time_launches. */
struct bo_launcher {
	const char *what;        /* the report's title; open may fill it */
	const char *env;         /* the gate's bound on a wait for a window */
	bool (*open)(void *arg); /* the runtime and a kernel */
	bool (*launch_and_wait)(void *arg); /* one launch, to its end */
	long (*stub_launches)(void *arg);   /* -1: a real runtime's */
	void *arg;
	/* The gate reports batches of launches (the CUDA gate's), each
	 * launch a block: counted from the ring header's running total of
	 * blocks, once every batch has ended, not from its records. */
	bool batched;
	bool (*finish)(void *arg); /* after the timed loop; NULL: none */
};
/* Times n launches after 10 untimed ones. With fake, under an
 * in-process fake batond: the gate registers at the first launch (which
 * waits out the bound, 10 ms, for a window), then the window stays open.
 * Reports, and fails (nonzero) unless every timed launch left one gate
 * record (with fake) and reached the stub (where it counts). */
int bo_time_launches(const struct bo_launcher *l, int n, int64_t *t, bool fake);
/* be_overhead cuda|cudafake (launch + stream synchronise) and
 * cudaasync|cudaasyncfake (the launch call alone, as a program that
 * queues its kernels sees it). */
int bench_cuda(int n, int64_t *t, bool fake, bool async);
