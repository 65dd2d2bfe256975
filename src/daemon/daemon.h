/* batond's state apart from its sockets: the tenant registry, the policy
 * and its per-GPU state, and the epoch tick that drives src/core exactly
 * as the simulator does. The event loop (loop.c) owns the file descriptors
 * and calls in here; the benchmark and tests call in directly. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "core/harvest.h"
#include "core/harvest_space.h"
#include "core/place_hold.h"
#include "core/policy.h"
#include "daemon/config/config.h"
#include "daemon/accounting/nvml_video.h"
#include "daemon/gpus.h"
#include "daemon/tick/host_load.h"
#include "daemon/report/metrics.h"
#include "daemon/server/owners.h"
#include "daemon/report/record.h"
#include "daemon/publish/publish.h"
#include "daemon/tenant.h"

struct daemon {
	struct daemon_config cfg;
	const struct core_policy *policy; /* changeable at run time */
	/* One controller per GPU (gpus.h): each its core_gpu, what stage 6
	 * found on it, its space partition, its CPUs' load. */
	struct daemon_gpu gpus[DAEMON_MAX_GPUS];
	size_t n_gpus;
	/* Time harvesting's parameters (core/harvest.h), every GPU's. */
	struct core_harvest_params harvest;
	size_t n_be; /* best-effort tenants among tenants */

	struct tenant **tenants;
	size_t n_tenants, cap_tenants;
	/* Seats placement gave sessions that have not registered yet
	 * (server/place.c gives, the hello takes). */
	struct core_place_holds place_holds;
	/* Who owns each uid for the per-uid limits (owners.h): read from
	 * cfg.subuid_path at start and on SIGHUP (daemon_load_owners). */
	struct owner_map owners;
	uint64_t next_id;

	uint64_t ticks;
	int64_t last_tick_ns; /* 0 before the first */
	double tick_cost_s;   /* wall time of the last daemon_tick */

	/* Where the tenants' CPU clocks are read (tenant_seen.h): NULL is
	 * "/proc"; a test's fake one otherwise. */
	const char *proc_root;
	/* The encoders' and VRAM's sources (tick_res.h): NVML, NULL when
	 * absent, its last figures; where amdgpu's sysfs files are read
	 * (NULL is "/sys"). */
	struct nvml_video *nvml_video;
	struct nvml_video_gpu nvml[DAEMON_MAX_GPUS];
	size_t n_nvml;
	int64_t nvml_read_ns;
	const char *sysfs_root;

	struct metrics *metrics;          /* NULL: no endpoint */
	struct metrics_snapshot snapshot; /* what the last tick published */
	struct record *record;            /* NULL: no history file (record.h) */
	/* Agones and Kubernetes (publish.h); NULL: neither. The profiles
	 * whose admission each publishes. */
	struct publisher *publisher;
	/* The quality models' loader thread (model_loader.h); NULL: games
	 * run without models. */
	struct model_loader *models;
	/* NVML's per-process accounting (nvml_account.h); NULL: no NVML
	 * device among the GPUs. */
	struct nvml_account *nvml_acct;
	const struct daemon_app *publish_agones_app, *publish_k8s_app;

	/* scratch reused by every tick, grown with the registry */
	struct core_tenant *core;
	struct core_be_tenant *be_core;
	struct metrics_tenant *snap;
	struct metrics_be *be_snap;
	size_t scratch_cap;
	double *intervals;          /* STATS_WINDOW */
	struct baton_frame *frames; /* BATON_RING_CAPACITY */
};

bool daemon_init(struct daemon *d, const struct daemon_config *cfg);
void daemon_finish(struct daemon *d);

/* Registers a tenant that takes over *shm. NULL when out of memory. */
struct tenant *daemon_add_tenant(struct daemon *d, const char *name, pid_t pid,
                                 uid_t uid, double sla_fps, double fixed_fps,
                                 struct ipc_shm *shm, int64_t now_ns);
/* Registers a best-effort tenant (weight in (0, IPC_BE_WEIGHT_MAX], cap in
 * (0, 1] or 0 = none) that takes over *shm; its control block says VALID
 * with no budget and no window until the next tick. NULL when out of
 * memory. */
struct tenant *daemon_add_be_tenant(struct daemon *d, const char *name,
                                    pid_t pid, uid_t uid, double weight,
                                    double cap, struct ipc_shm *shm,
                                    int64_t now_ns);
void daemon_remove_tenant(struct daemon *d, struct tenant *t);

/* Reads cfg.subuid_path into owners and gives every tenant its owner
 * again. false only when out of memory (the owners are then every uid
 * itself). */
bool daemon_load_owners(struct daemon *d);

/* Puts t (just added) on GPU g (gpus.h; < n_gpus), counted there. */
void daemon_tenant_to_gpu(struct daemon *d, struct tenant *t, unsigned g);

/* Moves game t from its GPU to GPU g (< n_gpus) after its registration:
 * if a tick of its old GPU's controller counted it, it leaves that
 * controller as a departing tenant does (core_caps_depart); on g it is
 * a newcomer to the capacity stage. */
void daemon_tenant_move(struct daemon *d, struct tenant *t, unsigned g);

/* The cap a tenant asked for in its hello (BATON_CAP; 0 = none): it may
 * lower the cap of its app entry, never raise it. */
void daemon_tenant_hello_cap(struct tenant *t, double cap);

/* The SLA the policy uses for t: its own, else the daemon's default. */
double daemon_tenant_sla(const struct daemon *d, const struct tenant *t);

/* The target a tenant starts at, written into its control block when it
 * registers so that it is paced from then on rather than from the first
 * tick: its pinned rate; unpaced under policy "none"; else its SLA
 * reference, SLA * (1 + sla_margin) (core_sla_ref: SA's reference, the
 * floor ESA and FSA keep, and where the PI loop's feed-forward puts SA's
 * first target). The first tick's decision replaces it. */
double daemon_start_target(const struct daemon *d, const struct tenant *t);

/* A best-effort tenant's control block: VALID, its budget as cap_ns_per_s,
 * its window as be_window_ns, BATON_CONTROL_BE_CONTINUOUS in continuous
 * mode (shm.h); no period. */
void daemon_write_be(const struct daemon *d, struct tenant *t);

/* One control epoch ending at now_ns (CLOCK_MONOTONIC): reads every ring,
 * runs core_controller_tick, writes every control block, publishes the
 * metrics snapshot and hands the admission over to the publisher. A tenant
 * whose ring fails validation is marked corrupt and left out; the caller drops
 * it. */
void daemon_tick(struct daemon *d, int64_t now_ns);

/* The status reply of proto.h (a new reference). */
json_t *daemon_status(struct daemon *d);

/* The units space harvesting divides on GPU dg (core/harvest_space.h):
 * harvest.space_units, or a logical GPU's CPUs when that is on; 0 =
 * off. */
unsigned daemon_space_units(const struct daemon *d,
                            const struct daemon_gpu *dg);

/* CLOCK_MONOTONIC in nanoseconds. */
int64_t daemon_now_ns(void);
