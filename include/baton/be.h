/* Baton's best-effort (BE) SDK: batch GPU work in the time the games leave
 * idle (GPU grid, Ino et al. 2014; docs/sdk.md).
 *
 * A task of N independent blocks (thread blocks, rows, tiles: any unit
 * whose time is about linear in its count) is handed out as sub-launches
 * (offset, count), each sized to the window batond opens now by an online
 * fit of t(n) = c0 + c1 n for the kernel. The caller launches each one
 * synchronously (OpenCL: global_work_offset, then clFinish; CUDA: an
 * offset argument, then a stream sync) and reports its device time:
 *
 *     struct baton_be_options o;
 *     baton_be_options_init(&o);
 *     baton_be *be;
 *     if (baton_be_open("matmul", &o, &be) != BATON_OK) ...
 *     baton_be_task_begin(be, KERNEL_ID, n_rows);
 *     int64_t off, cnt;
 *     while (baton_be_next(be, &off, &cnt) > 0) {
 *         int64_t ns = launch_and_wait(off, cnt);
 *         baton_be_done(be, off, cnt, ns);
 *     }
 *     baton_be_close(be);
 *
 * With batond (a daemon run by root or by the caller's uid), the client
 * registers as a best-effort tenant and follows the daemon's control
 * block: a sub-launch starts only while the window is open, sized to it;
 * after it the client rests as its budget asks. Without batond (no socket,
 * a refusal, a daemon run by someone else) or after losing it, it runs GPU
 * grid's own probe loop: the caller's probe (an empty kernel, launched and
 * synchronised) is timed before each sub-launch; three quick ones in a row
 * (under alpha, calibrated at open as a high percentile of probes on the
 * idle device) enter continuous mode, one slow one leaves it. Periodical
 * mode sizes sub-launches to `periodical_ms` and rests 1/F after each;
 * continuous mode runs `continuous_ms` sub-launches back to back. Without
 * a probe the client stays periodical. It never runs free.
 *
 * A handle is not thread-safe: one per thread, or a lock around it. Nor
 * is it fork-safe: a child process opens its own (the parent's shares
 * its connection and its shared memory).
 * Every call checks its arguments; a malformed call returns a negative
 * BATON_E* code (common.h) and logs one line on stderr (rate-limited). */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "baton/common.h" /* BATON_API, BATON_E*, baton_strerror */

#ifdef __cplusplus
extern "C" {
#endif

/* Deprecated: the names of the BE SDK's own export macro and return
 * codes before both SDKs shared common.h's. Same values; kept so that
 * programs written against them build. */
#define BATON_BE_API       BATON_API
#define BATON_BE_OK        BATON_OK
#define BATON_BE_EINVAL    BATON_EINVAL
#define BATON_BE_ESTATE    BATON_ESTATE
#define BATON_BE_ENOMEM    BATON_ENOMEM
#define BATON_BE_ESYS      BATON_ESYS
#define BATON_BE_ETIMEDOUT BATON_ETIMEDOUT

typedef struct baton_be baton_be;

/* Launches an empty kernel on the caller's queue or stream and waits for
 * it (GPU grid's probe). Returns 0, or nonzero on failure. */
typedef int (*baton_be_probe_fn)(void *user);

/* Grows by the rule in common.h: fill it with baton_be_options_init. */
struct baton_be_options {
	size_t size;             /* sizeof(struct baton_be_options), set by
	                            baton_be_options_init */
	double weight;           /* share among BE tenants, (0, 1000];
	                            default 1 */
	double cap;              /* published GPU cap, (0, 1]; 0 = none */
	const char *socket_path; /* NULL: $BATON_SOCKET, else the default */
	baton_be_probe_fn probe; /* NULL: no probe (periodical only) */
	void *probe_user;
	int64_t alpha_ns;      /* > 0: the probe threshold; 0: calibrate
	                          at open (needs probe) */
	uint32_t calib_probes; /* M probes for the calibration; default 32 */
	double calib_pct;      /* alpha = this percentile of them times
	                          calib_factor; defaults 95 and 1.5 */
	double calib_factor;
	double fps;           /* F of the no-daemon loop: rest 1/F after a
	                         periodical sub-launch; default 60 */
	double periodical_ms; /* no-daemon sub-launch length, periodical
	                         (GPU grid's N1: 8.5); under batond, the
	                         longest piece of the games' slot */
	double continuous_ms; /* and continuous (N2: 17) */
	int64_t max_wait_ms;  /* > 0: baton_be_next gives up after this
	                         (BATON_BE_ETIMEDOUT); 0: waits as long as
	                         the daemon keeps the window shut */
	int no_daemon;        /* nonzero: never contact batond */
	int cpu_device;       /* nonzero: the device computes on this
	                         process's CPUs (an OpenCL CPU device such
	                         as PoCL). Under batond with space
	                         harvesting on, sub-launches then also run
	                         outside the time slots on the cores batond
	                         gives the tenant beside the games', the
	                         process confined to them by CPU affinity;
	                         with the idle lane on, back to back with
	                         every thread at SCHED_IDLE, for good
	                         (docs/harvesting.md); beside the games
	                         (periodical sub-launches, the slot's) at
	                         SCHED_IDLE too, for good */
};

/* Fills *o with the defaults above, and its size. */
BATON_API void baton_be_options_init(struct baton_be_options *o);

/* Opens a client named name (1 to 63 bytes, registered with batond) with
 * options o (NULL: the defaults). Calibrates alpha with the probe, if one
 * is given and alpha_ns is 0: the device should be idle then. Tries
 * batond once; later calls retry it. */
BATON_API int baton_be_open(const char *name, const struct baton_be_options *o,
                            baton_be **out);

/* Starts a task of n_blocks (> 0) blocks of kernel kernel_id (any number
 * the caller picks; each id has its own fit of t(n)). A task still under
 * way is abandoned. */
BATON_API int baton_be_task_begin(baton_be *be, uint32_t kernel_id,
                                  int64_t n_blocks);

/* Waits (sleeping, never spinning) until a sub-launch may start, then
 * gives its first block and block count. Returns 1 with a sub-launch, 0
 * when the task is done, or a negative code. The caller must launch it,
 * wait for it, and call baton_be_done before the next call. */
BATON_API int baton_be_next(baton_be *be, int64_t *offset, int64_t *count);

/* The sub-launch baton_be_next gave finished: offset as given, count <= as
 * given (fewer when the caller did fewer), device_ns its measured device
 * time (< 0: not measured, the wall time since its release is used).
 * Feeds the fit, reports it to batond, sets the rest before the next. */
BATON_API int baton_be_done(baton_be *be, int64_t offset, int64_t count,
                            int64_t device_ns);

/* What the client is doing, for logs and tests. Grows by the rule in
 * common.h: set size before the call,
 *     struct baton_be_info info = {.size = sizeof info};
 */
struct baton_be_info {
	size_t size;       /* the caller's sizeof(struct baton_be_info) */
	int connected;     /* registered with batond now */
	int continuous;    /* in continuous mode */
	int64_t alpha_ns;  /* the probe threshold (0: none) */
	int64_t window_ns; /* the window of the last sub-launch */
	uint64_t launches; /* sub-launches reported */
	uint64_t blocks;   /* blocks reported */
	int64_t waited_ns; /* time spent waiting for windows and rests */
	double c0_s, c1_s; /* the current kernel's fit (0 if none) */
	uint64_t partition_launches; /* of launches, those run on a
	                                partition (cpu_device) */
	uint64_t idle_launches;      /* of launches, those run in the
	                                idle lane (cpu_device) */
};
BATON_API int baton_be_info(const baton_be *be, struct baton_be_info *out);

/* Closes the connection and frees the handle (NULL is fine). */
BATON_API void baton_be_close(baton_be *be);

/* Deprecated: baton_strerror (common.h), which it calls. */
BATON_API BATON_DEPRECATED("use baton_strerror") const
    char *baton_be_strerror(int code);

#ifdef __cplusplus
}
#endif
