/* A tenant's GPU busy time as the kernel counts it: the DRM clients its
 * process holds (/proc/PID/fdinfo, drm_fdinfo.h), their render engines'
 * busy time over an epoch. On a GPU whose driver prints usage stats
 * (amdgpu, i915, xe, panthor, msm) this is the tenant's own time, where
 * the shim's timers measure elapsed time that includes every other
 * tenant's slices.
 *
 * The process is the tenant's peer (SO_PEERCRED's pid) and hostile. The
 * reading is bounded: at most GPU_ACCOUNT_MAX_SCAN entries of its fd
 * directory looked at (every 2 s: which fds are DRM devices, by
 * their links to /dev/dri/), at most GPU_ACCOUNT_MAX_FDS fdinfo files
 * read a tick, each at most GPU_ACCOUNT_FILE_MAX bytes, opened with
 * O_NOFOLLOW | O_NONBLOCK; a directory owned by another uid than the
 * tenant's is not read (the pid names another user's process). Several
 * fds may share one client: clients are counted once, by (drm-pdev,
 * drm-client-id). The counters only grow; one that went backwards or
 * wrapped counts 0 for the epoch and is the new base. Whether the pid is
 * still the peer's process is the caller's check (tenant_seen.h's start
 * time). */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "daemon/accounting/drm_fdinfo.h"

#define GPU_ACCOUNT_MAX_SCAN    512
#define GPU_ACCOUNT_MAX_FDS     16
#define GPU_ACCOUNT_MAX_CLIENTS 8
#define GPU_ACCOUNT_MAX_CYCLES  4
#define GPU_ACCOUNT_FILE_MAX    4096
#define GPU_ACCOUNT_RESCAN_NS   2000000000LL
/* Scans of tenants' fd directories a tick, for all tenants: a scan
 * reads up to GPU_ACCOUNT_MAX_SCAN links (about 0.2 ms for 64). */
#define GPU_ACCOUNT_SCANS_PER_TICK 8

/* One DRM client's counters, summed over its engines of a class. */
struct gpu_client {
	char pdev[DRM_FDINFO_PDEV_MAX];
	uint64_t id;
	int fd;          /* the fd it was read from (of several, the first) */
	bool has_render; /* a render engine with a usable counter */
	uint64_t render_ns; /* drm_engine_busy_ns, summed */
	/* xe: each render engine class's cycles (per engine of the
	 * class) against its clock, drm-total-cycles-<e> */
	struct gpu_cycles {
		char engine[DRM_FDINFO_NAME_MAX];
		uint64_t cycles, total;
	} cycles[GPU_ACCOUNT_MAX_CYCLES];
	unsigned n_cycles;
	uint64_t video_ns;       /* the video engines' (encode, decode) */
	uint64_t resident_bytes; /* its memory */
};

enum gpu_account_state {
	GPU_ACCOUNT_NONE,       /* no DRM client with render counters */
	GPU_ACCOUNT_OK,         /* counted */
	GPU_ACCOUNT_GONE,       /* the process or its fds cannot be read */
	GPU_ACCOUNT_OTHER_USER, /* its /proc directory is another uid's */
};

struct gpu_account {
	int fds[GPU_ACCOUNT_MAX_FDS]; /* its DRM fds, as of the last scan */
	unsigned n_fds;
	int64_t scanned_ns; /* the last scan; 0 = none */
	struct gpu_client clients[GPU_ACCOUNT_MAX_CLIENTS]; /* the base */
	unsigned n_clients;
	bool based;                    /* clients hold a base */
	enum gpu_account_state state;  /* of the last read */
	enum gpu_account_state logged; /* the last state batond logged */
	double busy_s;                 /* last epoch: render engines' time */
	double video_s;                /* and the video engines' */
	uint64_t resident_bytes;       /* its clients' memory, summed */
};

/* Where a tenant is: proc_root ("/proc" for NULL), its pid, its peer's
 * uid, and the PCI slot of its GPU ("" = count every client's). */
struct gpu_account_who {
	const char *proc_root;
	pid_t pid;
	uid_t uid;
	const char *pdev;
};

/* Reads the DRM clients of w's process into out[0..*n) (at most max),
 * deduplicated, of w->pdev's device. fds/n_fds: the fds to read
 * (gpu_account_scan's). */
enum gpu_account_state gpu_account_read(const struct gpu_account_who *w,
                                        const int *fds, unsigned n_fds,
                                        struct gpu_client *out, unsigned max,
                                        unsigned *n);

/* The fds of w's process that are DRM devices, into a->fds. Between
 * scans a tick reads one fd per client it found (a dup'ed fd shows the
 * same counters). */
enum gpu_account_state gpu_account_scan(struct gpu_account *a,
                                        const struct gpu_account_who *w);

/* One epoch of length dt ending at now_ns: a->busy_s, video_s and
 * resident_bytes from the growth of the counters since the last epoch.
 * true if the kernel counted the tenant's render time this epoch (state
 * GPU_ACCOUNT_OK, and a base from the epoch before); busy_s is then in
 * [0, dt]. A zeroed struct gpu_account is a tenant's start: its first
 * epoch takes the base. A scan of its fds is due every 2 s; it is
 * done only while *scans_left > 0 (the tick's budget, decremented), so
 * that many tenants, or one process registered many times, spread their
 * scans over several ticks. */
bool gpu_account_epoch(struct gpu_account *a, const struct gpu_account_who *w,
                       int64_t now_ns, double dt, unsigned *scans_left);

/* Keeps of a's clients those of PCI slot pdev ("" = every one): its
 * base, its fds until the next scan and its memory. For an account read
 * across every device (a tenant whose GPU its clients decide,
 * gpu_pdev.h) once that GPU is known. */
void gpu_account_keep_pdev(struct gpu_account *a, const char *pdev);

/* Where a tenant's GPU seconds came from this epoch, best first
 * (docs/runtime.md, "Accounting sources"). */
enum gpu_source {
	GPU_SOURCE_SHIM,   /* its shim's timers, as tenant_seen.h bounds them */
	GPU_SOURCE_FDINFO, /* the kernel's count of its DRM clients */
	GPU_SOURCE_CPU,    /* its process's CPU time on a CPU device */
	GPU_SOURCE_NVML,   /* NVML's per-process utilization samples */
};

/* "shim", "fdinfo", "nvml", "cpu": the name status, metrics and the history
 * file give it. */
const char *gpu_source_name(enum gpu_source s);
