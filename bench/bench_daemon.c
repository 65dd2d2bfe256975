/* batond's epoch tick: 64 registered tenants, each with ~10 new ring
 * records per epoch (a 100 FPS game at the default 100 ms epoch), ticked
 * in-process on a virtual clock. Reads every ring, runs the SA policy and
 * the PI loops, writes every control block and, as batond does with its
 * metrics endpoint on, builds the metrics snapshot (quantiles included).
 * Prints the median over many ticks; also with every tenant capped at
 * 1/TENANTS of the GPU and four user caps (the capacity stage at work:
 * joins, sampling, budgets written into the control blocks); and with
 * BE best-effort tenants beside the games, each reporting ~10 sub-launches
 * per epoch (the harvesting stage and their control blocks). */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "daemon/daemon.h"
#include "ipc/ring.h"

enum { TENANTS = 64, BE = 8, RECORDS = 10, WARMUP = 50, TICKS = 2000 };
#define EPOCH_NS 100000000LL

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;
	return (x > y) - (x < y);
}

static double run(bool with_metrics, bool caps, int n_be)
{
	struct daemon_config cfg;
	daemon_config_defaults(&cfg);
	cfg.metrics_on = false;
	if (caps) {
		for (size_t u = 0; u < 4; u++)
			cfg.user_caps[u] = (struct core_owner_cap){
			    .owner = 1000 + u, .cap = 0.2};
		cfg.n_user_caps = 4;
	}
	struct daemon d;
	if (!daemon_init(&d, &cfg))
		exit(1);
	if (with_metrics) {
		char err[128];
		unsigned port;
		d.metrics = metrics_start("127.0.0.1", 0, false, &port, err,
		                          sizeof(err));
		if (!d.metrics) {
			fprintf(stderr, "bench_daemon: %s\n", err);
			exit(1);
		}
	}
	static struct ipc_shm shim[TENANTS + BE];
	static int fds[TENANTS + BE];
	int64_t now = 1000LL * 1000000000LL;
	for (int i = 0; i < TENANTS; i++) {
		fds[i] = ipc_shm_create((uint32_t)i, &shim[i]);
		struct ipc_shm mine;
		char err[128];
		if (fds[i] < 0 || !ipc_shm_map(fds[i], &mine, err, sizeof(err)))
			exit(1);
		char name[16];
		snprintf(name, sizeof(name), "game%d", i);
		struct tenant *t = daemon_add_tenant(
		    &d, name, 1000 + i, caps ? 1000 + (uid_t)(i % 4) : 1000, 30,
		    0, &mine, now);
		if (!t)
			exit(1);
		if (caps)
			t->cap = 1.0 / TENANTS;
	}
	for (int i = TENANTS; i < TENANTS + n_be; i++) {
		fds[i] = ipc_shm_create((uint32_t)i, &shim[i]);
		struct ipc_shm mine;
		char err[128];
		if (fds[i] < 0 || !ipc_shm_map(fds[i], &mine, err, sizeof(err)))
			exit(1);
		if (!daemon_add_be_tenant(&d, "be", 1000 + i, 1000, 1 + i % 3,
		                          0, &mine, now))
			exit(1);
	}
	static long long cost[TICKS];
	uint64_t seq[TENANTS + BE] = {0};
	for (int k = 0; k < WARMUP + TICKS; k++) {
		for (int i = 0; i < TENANTS; i++) {
			for (int r = 0; r < RECORDS; r++) {
				seq[i]++;
				struct baton_frame f = {
				    .present_ns = now +
				                  (r + 1) * EPOCH_NS / RECORDS -
				                  i * 1000,
				    .cpu_ns = 4000000,
				    .target_period_ns = 10000000,
				    .gpu_ns = 3000000 + (i + r) * 10000,
				    .gpu_frame = seq[i],
				};
				ipc_ring_push(shim[i].ring, shim[i].records,
				              &f);
			}
		}
		for (int i = TENANTS; i < TENANTS + n_be; i++) {
			for (int r = 0; r < RECORDS; r++) {
				seq[i]++;
				struct baton_frame f = {
				    .present_ns =
				        now + (r + 1) * EPOCH_NS / RECORDS,
				    .cpu_ns = 2,
				    .sleep_ns = 1000000,
				    .gpu_ns = 1000000,
				    .gpu_frame = seq[i],
				    .flags = BATON_FRAME_BE,
				};
				ipc_ring_push(shim[i].ring, shim[i].records,
				              &f);
			}
		}
		now += EPOCH_NS;
		int64_t t0 = daemon_now_ns();
		daemon_tick(&d, now);
		int64_t t1 = daemon_now_ns();
		if (k >= WARMUP)
			cost[k - WARMUP] = t1 - t0;
	}
	qsort(cost, TICKS, sizeof(cost[0]), cmp_ll);
	metrics_stop(d.metrics);
	d.metrics = NULL;
	daemon_finish(&d);
	for (int i = 0; i < TENANTS + n_be; i++) {
		ipc_shm_unmap(&shim[i]);
		close(fds[i]);
	}
	return (double)cost[TICKS / 2] / 1000.0;
}

int main(void)
{
	double with = run(true, false, 0), without = run(false, false, 0);
	double capped = run(true, true, 0), be = run(true, false, BE);
	printf("daemon_tick tenants=%d median_us=%.1f\n", TENANTS, with);
	printf("daemon_tick_no_metrics tenants=%d median_us=%.1f\n", TENANTS,
	       without);
	printf("daemon_tick_caps tenants=%d median_us=%.1f\n", TENANTS, capped);
	printf("daemon_tick_be tenants=%d be=%d median_us=%.1f\n", TENANTS, BE,
	       be);
	return 0;
}
