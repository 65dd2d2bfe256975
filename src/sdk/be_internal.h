/* The BE SDK's handle and its parts (include/baton/be.h): be.c (the API,
 * the wait and the sizing), be_conn.c (registration with batond),
 * be_probe.c (GPU grid's probe and alpha), be_log.c (rate-limited lines).
 * libc, libm and pthread only; the sizing and the modes are the core's
 * (core/harvest.h, core/harvest_fit.h), not reimplemented here. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "baton/be.h"
#include "core/harvest.h"
#include "core/harvest_fit.h"
#include "ipc/control.h"
#include "ipc/cpu_partition.h"
#include "ipc/shm_layout.h"

#define BE_NAME_MAX   64 /* bytes, NUL included (ipc/msg.h IPC_NAME_MAX) */
#define BE_KERNELS    16 /* kernels with a fit of their own */
#define BE_STEP_NS    2000000LL    /* re-read the control block while shut */
#define BE_RETRY_NS   250000000LL  /* redial after a lost or absent daemon */
#define BE_REFUSED_NS 5000000000LL /* after a refusal or an impostor */
#define BE_REPLY_NS   500000000LL  /* longest wait for the welcome */

struct be_kernel {
	bool used;
	uint32_t id;
	uint64_t last_use;
	struct core_harvest_fit fit;
	struct core_harvest_fit fit_part; /* on a partition (be_space.c) */
	struct core_harvest_fit fit_idle; /* in the idle lane (be_idle.c) */
};

/* Whether the GPU's share batond gave (shm.h BATON_PARTITION, in SMs)
 * holds the process: asked of the launch gate, which knows what its
 * contexts are confined to (be_space.c). */
typedef bool (*be_gpu_fits_fn)(uint32_t partition);

struct baton_be {
	char name[BE_NAME_MAX];
	struct baton_be_options opt;
	char socket[108];
	/* the data plane: our memfd, handed to every daemon we register with */
	int memfd;
	struct ipc_shm shm;
	/* the connection (be_conn.c) */
	int sock;                      /* -1: none */
	bool connected;                /* welcome received, not lost since */
	int64_t redial_ns;             /* next attempt not before */
	bool said_absent;              /* one line per outage */
	uint32_t reg_seq;              /* control seq when we sent the hello */
	struct ipc_control_values ctl; /* last complete read */
	bool ctl_seen;
	/* modes and windows: the core's */
	struct core_harvest_params hp;    /* with batond */
	struct core_harvest_params hp_nd; /* the probe loop's */
	struct core_be_tenant tenant;
	int64_t alpha_ns;
	/* the task */
	bool in_task;
	bool keep_mode; /* a task does not restart the hysteresis: the
	                   gate's tasks are single launches */
	struct core_harvest_task task;
	uint64_t granule; /* > 1: a sub-launch short of the task's end is a
	                     whole number of these blocks (the OpenCL gate:
	                     work-groups, the device's compute units) */
	struct be_kernel *kernel;
	struct be_kernel kernels[BE_KERNELS];
	uint64_t uses;
	bool outstanding; /* given by next, not yet done */
	uint64_t out_off, out_count;
	bool out_daemon; /* given under batond's window */
	int64_t release_ns, out_waited_ns, window_ns;
	int64_t rest_until_ns; /* no sub-launch before; < 0: until the
	                          daemon writes again */
	uint64_t rest_epoch;   /* the policy epoch the rest waits past */
	/* space harvesting (be_space.c): the CPUs to divide, and whether
	 * the sub-launch given runs on the partition */
	struct cpu_partition cpus;
	bool cpus_init;
	bool out_part;
	/* or a GPU's SMs, where the launch gate can say (NULL: it cannot) */
	be_gpu_fits_fn gpu_fits;
	/* the idle lane (be_idle.c): the threads lowered, when to look for
	 * new ones, and whether lowering failed (no lane asked for since);
	 * whether the sub-launch given runs in the lane */
	bool idle_entered, idle_refused, out_idle;
	bool idle_slot_refused; /* be_idle_beside_games could not lower */
	int64_t idle_rescan_ns;
	/* counters */
	uint64_t launches, blocks, part_launches, idle_launches;
	int64_t waited_ns;
};

int64_t be_now_ns(void);
/* Sleeps until the absolute CLOCK_MONOTONIC time t_ns. */
void be_sleep_until(int64_t t_ns);

/* Logs one line "baton-be: ..." on stderr; at most one per second per
 * key, with the count of lines held back. */
void be_log(int key, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
enum {
	BE_LOG_CALL,
	BE_LOG_CONN, /* registered, unreachable, refused */
	BE_LOG_LOST, /* its own key: it follows "registered" closely */
	BE_LOG_PROBE,
	BE_LOG_WAIT,
	BE_LOG_IDLE,   /* the idle lane (be_idle.c) */
	BE_LOG_DEVICE, /* the OpenCL gate's device filter (cl/devices.c) */
	BE_LOG_KEYS
};

/* be.c. For a launch gate whose baton_be_next timed out and which ran
 * count blocks anyway, released at release_ns, for t_ns: one record of
 * them (with the wait that timed out), so that batond counts the work as
 * this tenant's and not, on a CPU device, as load no tenant reports
 * (which would shrink every best-effort budget, this one's first). */
void be_report_unwindowed(struct baton_be *be, int64_t count, int64_t t_ns,
                          int64_t release_ns);
/* be.c. The shortest time (ns) a recent sub-launch of n blocks of the
 * current task's kernel took, in any lane; -1 with none. */
int64_t be_kernel_shortest_ns(const struct baton_be *be, uint64_t n);

/* be_conn.c. Keeps the registration: notices a lost daemon (one poll)
 * and redials when due. Returns whether we are registered now. */
bool be_conn_poll(struct baton_be *be, int64_t now_ns);
void be_conn_close(struct baton_be *be);
/* Writes the be hello into buf; its length, 0 if it does not fit.
 * partition: the device is our CPUs; idle: and we follow the idle lane. */
size_t be_hello_format(char *buf, size_t len, const char *name, double weight,
                       double cap, bool partition, bool idle);

/* be_gate.c, for the launch gates: opens *out from the environment
 * `baton run --be` sets (BATON_NAME, else the program's name, else api;
 * BATON_BE_WEIGHT, BATON_CAP; the longest wait for a window from
 * max_wait_env, default 1000 ms), with probe as the probe,
 * cpu_device as the option (baton_be_options) and gpu_fits (be_open).
 * Each launch is
 * its own task (keep_mode). On failure logs "the API gate is off" and
 * returns the code with *out NULL. */
int be_gate_open(const char *api, const char *max_wait_env,
                 baton_be_probe_fn probe, bool cpu_device,
                 be_gpu_fits_fn gpu_fits, baton_be **out);
/* baton_be_open, with gpu_fits (be_space.c): a client that may run on a
 * share of a GPU's SMs, and says so in its hello. */
int be_open(const char *name, const struct baton_be_options *o,
            be_gpu_fits_fn gpu_fits, baton_be **out);

/* be_space.c. Under batond, when the window is shut: true and the
 * window *w (s) if a sub-launch may start now on the partition batond
 * gave us (the process confined to it); else false, *wake moved up to
 * the next slot if that comes first. */
bool be_space_window(struct baton_be *be, int64_t now, double *w,
                     int64_t *wake);
/* Confines the process to partition p (0: every CPU it started with)
 * unless it already is; false if that failed (logged). Nothing, and true
 * for p == 0, without the cpu_device option. */
bool be_space_enter(struct baton_be *be, uint32_t p);

/* be_idle.c. Under batond's idle lane: lowers every thread to
 * SCHED_IDLE (again each second for new ones) and returns true. Without
 * cpu_device, or once lowering failed, false; on that failure it also
 * drops the registration so that the next hello asks for no lane. */
bool be_idle_enter(struct baton_be *be, int64_t now);
/* Before a periodical sub-launch under batond (games on the device):
 * with cpu_device, the same lowering, for good; a failure is logged once
 * and changes nothing else (no lane was asked for on its account). */
void be_idle_beside_games(struct baton_be *be, int64_t now);

/* be_probe.c. Times one probe (ns), < 0 if it failed. */
int64_t be_probe_once(const struct baton_be *be);
/* alpha from m probes: the pct percentile times factor; < 0 on failure. */
int64_t be_probe_calibrate(const struct baton_be *be, uint32_t m, double pct,
                           double factor);
