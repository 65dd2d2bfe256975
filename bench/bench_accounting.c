/* batond's GPU accounting per tick (daemon/accounting/gpu_account.h): 64
 * tenants, each a process with 4 DRM fds (two clients, each on two fds,
 * as Mesa dups its render node fd) among 60 other fds (sockets, files), on
 * a fake /proc tree in amdgpu's fdinfo format whose counters advance
 * every tick. Each tick reads every tenant's clients, and scans the fd
 * directories that are due (every 2 s each, at most
 * GPU_ACCOUNT_SCANS_PER_TICK a tick, as the tick does). The cost is the
 * thread's CPU time per tick; prints the median, the 99th percentile and the
 * largest over TICKS ticks of a virtual 100 ms clock. Target
 * (docs/benchmarks.md): under 1 ms. */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench_time.h"
#include "daemon/accounting/gpu_account.h"

enum { TENANTS = 64, DRM_FDS = 4, OTHER_FDS = 60, TICKS = 600 };
#define EPOCH_NS 100000000LL

static char root[64];

static void mkdir_p(const char *path)
{
	if (mkdir(path, 0755) != 0 && errno != EEXIST) {
		perror(path);
		exit(1);
	}
}

static void write_fdinfo(int pid, int fd, unsigned client, long long gfx)
{
	char path[160];
	snprintf(path, sizeof(path), "%s/%d/fdinfo/%d", root, pid, fd);
	FILE *f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(1);
	}
	fprintf(f,
	        "pos:\t0\nflags:\t02100002\nmnt_id:\t24\nino:\t1055\n"
	        "drm-driver:\tamdgpu\ndrm-client-id:\t%u\n"
	        "drm-pdev:\t0000:03:00.0\ndrm-total-vram:\t44564 KiB\n"
	        "drm-resident-vram:\t44564 KiB\ndrm-total-gtt:\t2392 KiB\n"
	        "drm-resident-gtt:\t2392 KiB\ndrm-engine-gfx:\t%lld ns\n"
	        "drm-engine-compute:\t0 ns\ndrm-engine-dma:\t0 ns\n"
	        "drm-engine-dec:\t0 ns\ndrm-engine-enc:\t0 ns\n",
	        client, gfx);
	fclose(f);
}

static void make_tree(void)
{
	char path[160];
	for (int t = 0; t < TENANTS; t++) {
		int pid = 1000 + t;
		snprintf(path, sizeof(path), "%s/%d", root, pid);
		mkdir_p(path);
		snprintf(path, sizeof(path), "%s/%d/fd", root, pid);
		mkdir_p(path);
		snprintf(path, sizeof(path), "%s/%d/fdinfo", root, pid);
		mkdir_p(path);
		for (int fd = 3; fd < 3 + OTHER_FDS + DRM_FDS; fd++) {
			bool drm = fd >= 3 + OTHER_FDS;
			snprintf(path, sizeof(path), "%s/%d/fd/%d", root, pid,
			         fd);
			if (symlink(drm ? "/dev/dri/renderD128" : "socket:[77]",
			            path) != 0) {
				perror(path);
				exit(1);
			}
		}
	}
}

static void advance(long long tick)
{
	for (int t = 0; t < TENANTS; t++)
		for (int k = 0; k < DRM_FDS; k++)
			write_fdinfo(1000 + t, 3 + OTHER_FDS + k,
			             (unsigned)(t * 2 + k / 2),
			             tick * 20000000LL);
}

static double thread_cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int rm_entry(const char *path, const struct stat *st, int flag,
                    struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

int main(void)
{
	snprintf(root, sizeof(root), "%s/baton-bench-acct-XXXXXX",
	         getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(root))
		return 1;
	make_tree();
	static struct gpu_account acct[TENANTS];
	static double cost[TICKS];
	uid_t uid = getuid();
	double busy = 0.0;
	for (long long k = 0; k < TICKS; k++) {
		advance(k);
		unsigned scans = GPU_ACCOUNT_SCANS_PER_TICK;
		double t0 = thread_cpu_s();
		for (int t = 0; t < TENANTS; t++) {
			struct gpu_account_who w = {.proc_root = root,
			                            .pid = 1000 + t,
			                            .uid = uid,
			                            .pdev = "0000:03:00.0"};
			if (gpu_account_epoch(&acct[t], &w, (k + 1) * EPOCH_NS,
			                      0.1, &scans))
				busy += acct[t].busy_s;
		}
		cost[k] = thread_cpu_s() - t0;
	}
	nftw(root, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
	qsort(cost, TICKS, sizeof(cost[0]), cmp_double);
	/* 2 clients of 20 ms an epoch, from the epoch after each tenant's
	 * first scan on */
	double want = 0.0;
	for (int t = 0; t < TENANTS; t++)
		want +=
		    (TICKS - 1 - t / GPU_ACCOUNT_SCANS_PER_TICK) * 2 * 0.020;
	printf("accounting, %d tenants x %d DRM fds (+%d others): median "
	       "%.3f ms a tick, p99 %.3f ms, max %.3f ms (busy counted "
	       "%.1f s of %.1f s)\n",
	       TENANTS, DRM_FDS, OTHER_FDS, cost[TICKS / 2] * 1e3,
	       cost[TICKS * 99 / 100] * 1e3, cost[TICKS - 1] * 1e3, busy, want);
	return busy > want * 1.000001 || busy < want * 0.999999;
}
