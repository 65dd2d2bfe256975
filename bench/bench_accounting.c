/* batond's GPU accounting per tick (daemon/accounting/gpu_account.h): 64
 * tenants, each a process with 4 DRM fds (two clients, each on two fds,
 * as Mesa dups its render node fd) among 60 other fds (sockets, files), on
 * a fake /proc tree in amdgpu's fdinfo format whose counters advance
 * every tick. Each tick reads every tenant's clients, and scans the fd
 * directories that are due (every 2 s each, at most
 * GPU_ACCOUNT_SCANS_PER_TICK a tick, as the tick does). The cost is the
 * thread's CPU time per tick; prints the median, the 99th percentile and the
 * largest over TICKS ticks of a virtual 100 ms clock. Target
 * (docs/benchmarks.md): under 1 ms.
 *
 * With an argument, the path of a libnvidia-ml (the stub of
 * tests/unit/daemon), the NVML path too (daemon/accounting/nvml_*): 64
 * tenants' processes on one NVML device, each 20 % busy; the tick's part
 * (each tenant's counter read under the poller's lock) and, apart, one
 * poll of the device as the worker thread makes it (with the stub, that
 * is mostly its reading of its script file). */
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
#include "daemon/accounting/nvml_account.h"

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

/* The stub's script (stub_nvml_procs.c): its clock at tick k, the 64
 * processes at 20 %. */
static void nvml_script(const char *path, long long k)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(1);
	}
	fprintf(f, "period_us 100000\nnow_us %lld\nutil 0 90\n",
	        1000000000LL + k * 100000LL);
	for (int t = 0; t < TENANTS; t++)
		fprintf(f, "proc 0 %d 20 67108864 graphics\n", 1000 + t);
	fclose(f);
}

static int bench_nvml(const char *lib)
{
	char path[96];
	snprintf(path, sizeof(path), "%s/baton-bench-nvml-%d",
	         getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
	setenv("BATON_STUB_NVML_SCRIPT", path, 1);
	nvml_script(path, 0);
	static const char uuids[1][40] = {"6a1c4f2e000011112222333344445551"};
	struct nvml_account *a = nvml_account_start(lib, uuids, 1, 0);
	if (!a) {
		fprintf(stderr, "%s: no NVML device to bench\n", lib);
		return 1;
	}
	static struct nvml_tenant nt[TENANTS];
	static double tick[TICKS], poll[TICKS];
	double busy = 0.0;
	for (long long k = 0; k < TICKS; k++) {
		nvml_script(path, k);
		double t0 = thread_cpu_s();
		nvml_account_poll(a, (k + 1) * EPOCH_NS);
		double t1 = thread_cpu_s();
		for (int t = 0; t < TENANTS; t++)
			if (nvml_tenant_epoch(&nt[t], a, 0, 1000 + t, 0.1))
				busy += nt[t].busy_s;
		tick[k] = thread_cpu_s() - t1;
		poll[k] = t1 - t0;
	}
	nvml_account_stop(a);
	unlink(path);
	qsort(tick, TICKS, sizeof(tick[0]), cmp_double);
	qsort(poll, TICKS, sizeof(poll[0]), cmp_double);
	/* 20 % of every 100 ms period after the base */
	double want = TENANTS * (TICKS - 1) * 0.020;
	printf("NVML, %d tenants: the tick's part median %.4f ms, p99 %.4f "
	       "ms; the worker's poll median %.3f ms, p99 %.3f ms (busy "
	       "counted %.2f s of %.2f s)\n",
	       TENANTS, tick[TICKS / 2] * 1e3, tick[TICKS * 99 / 100] * 1e3,
	       poll[TICKS / 2] * 1e3, poll[TICKS * 99 / 100] * 1e3, busy, want);
	return busy > want * 1.000001 || busy < want * 0.999999;
}

int main(int argc, char **argv)
{
	if (argc > 2 || (argc == 2 && argv[1][0] == '-')) {
		fprintf(stderr,
		        "usage: bench_accounting [LIBNVIDIA_ML]\n"
		        "  the fdinfo path's cost per tick at 64 "
		        "tenants; with the path of a libnvidia-ml (the "
		        "stub\n  of tests/unit/daemon), the NVML path's "
		        "too\n");
		return argc == 2 && strcmp(argv[1], "--help") == 0 ? 0 : 2;
	}
	if (argc == 2 && bench_nvml(argv[1]) != 0)
		return 1;
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
