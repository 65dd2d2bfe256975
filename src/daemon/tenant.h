/* One registered tenant: its mapped memfd, the ring reader, the policy
 * core's per-tenant state and the statistics status and metrics report. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/harvest.h"
#include "core/policy.h"
#include "daemon/accounting/gpu_account.h"
#include "daemon/accounting/gpu_res.h"
#include "daemon/accounting/nvml_account.h"
#include "daemon/tick/proc_cpu.h"
#include "daemon/quality/quality.h"
#include "daemon/tick/stats.h"
#include "daemon/tick/tenant_seen.h"
#include "ipc/msg.h"
#include "ipc/ring.h"
#include "ipc/shm_layout.h"
#include "util/log_gate.h"

struct tenant {
	/* 64 bits: at 10 000 registrations a second a 32-bit id would wrap
	 * within days, and a recycled id could address someone else's game. */
	uint64_t id;
	char name[IPC_NAME_MAX];
	pid_t pid;        /* from SO_PEERCRED, not the header */
	uid_t uid;        /* who runs it, from SO_PEERCRED: who may set it */
	uid_t owner;      /* whose per-uid limits it counts against: uid, or
	                     the user whose subordinate uid it is (owners.h) */
	double sla_fps;   /* as registered or set; 0 = the daemon's default */
	double fixed_fps; /* > 0: pinned */
	unsigned gpu;     /* the GPU it renders on: an index of daemon.gpus
	                     (gpus.h: daemon_gpu_for at its hello) */
	bool gpu_open;    /* its hello named no GPU (daemon_gpu_choose's
	                     fallback) on a node of several: the drm-pdev of
	                     its DRM clients places it, once (tick_account.c) */
	uint64_t registered_tick; /* daemon.ticks when it registered */
	/* Published GPU cap in (0, 1], 0 = none: the app entry of batond's
	 * config, lowered by the hello's (BATON_CAP), replaced by `baton
	 * set cap=`. The capacity stage turns it into a budget. */
	double cap;
	bool work_conserving;
	bool work_after_wait; /* its hello said "api":"gl": frames reach the
	                         GPU at the real swap, after the pacing wait
	                         (core_tenant.work_after_wait) */

	struct ipc_shm shm; /* owned: unmapped when the tenant goes */
	struct ipc_ring_reader reader;
	struct core_tenant core;

	struct stats_window win;
	int64_t last_present_ns; /* 0 = no frame yet */
	double gpu_share;        /* GPU busy / epoch, smoothed: of what it
	                            claimed, what batond saw (seen) */
	/* What batond measures of it, and what of its GPU time counts
	 * (tenant_seen.h): set at registration by the daemon. */
	struct tenant_seen seen;
	/* The kernel's count of its DRM clients (gpu_account.h), and the
	 * source its GPU seconds came from last epoch (tick.c). */
	struct gpu_account acct;
	/* its video engines' share and its VRAM (gpu_res.h) */
	struct gpu_res_tenant res;
	/* NVML's count of its process (nvml_account.h): its SM time and
	 * used device memory */
	struct nvml_tenant nvml;
	enum gpu_source gpu_source;
	/* Frame-time quantiles 0.5, 0.9, 0.99 over 2 s for the metrics,
	 * refreshed once a second (at frame_q_ns): a scrape comes every 15 s
	 * or so, and selecting them every epoch for every tenant would be
	 * most of the tick's cost. */
	double frame_q[3];
	int64_t frame_q_ns;

	/* Below-SLA accounting in whole seconds of wall time since
	 * registration: the second [second_start, +1 s) holds second_frames. */
	int64_t second_start_ns;
	uint32_t second_frames;
	uint64_t below_sla_s;

	bool corrupt; /* the ring failed validation: drop at once */

	/* Games using the SDK's quality API (daemon/quality/quality.h). */
	struct daemon_quality quality;

	/* A best-effort tenant (role "be", docs/harvesting.md): no frames,
	 * no SLA, no pacing; it takes no part in the policies or the
	 * capacity stage (its core_tenant stays zero) and gets a budget and
	 * a window from the harvesting stage (core/harvest.h). cap above is
	 * its cap there. */
	bool be;
	struct tenant_be {
		double weight;  /* (0, IPC_BE_WEIGHT_MAX] */
		bool partition; /* can run on a space partition (its
		                   hello's "partition") */
		struct core_be_tenant core;
		double units_s;      /* work units per second, smoothed */
		double wait_ratio;   /* time waiting for a window or its
		                        budget per second, smoothed */
		double wait_carry_s; /* reported wait not yet accounted: a
		                        record brings a long wait at once, and
		                        it is spread over the epochs after */
		uint64_t units;      /* work units done, in all */
		int64_t last_ns;     /* its last record's present_ns, else its
		                        registration: no wait counts beyond */
		/* the ring header's totals (shm.h) as last read: their
		 * growth is the tick's work and GPU time; at registration,
		 * what the client did before is history */
		uint64_t blocks_seen, device_ns_seen;
		/* its registration: no inflight time counts before
		 * (be_stuck.h) */
		int64_t registered_ns;
	} be_state;

	/* Records of the wrong kind (BATON_FRAME_BE from a game, a frame
	 * from a best-effort tenant): dropped, counted, logged at most once
	 * a second (shm.h). */
	uint64_t wrong_kind;
	struct log_gate wrong_kind_log; /* one line a second */
};

/* Allocates a tenant that takes over *shm (cleared) and starts reading its
 * ring at the current head. NULL when out of memory. */
struct tenant *tenant_create(uint64_t id, const char *name, pid_t pid,
                             uid_t uid, double sla_fps, double fixed_fps,
                             struct ipc_shm *shm, int64_t now_ns);
void tenant_destroy(struct tenant *t);

/* Accounts one accepted frame to the current and the elapsed seconds. */
void tenant_count_frame(struct tenant *t, int64_t present_ns);

/* Closes every whole second that ended at least grace_ns before now,
 * adding one below-SLA second for each that held fewer than sla frames. */
void tenant_close_seconds(struct tenant *t, double sla, int64_t now_ns,
                          int64_t grace_ns);
