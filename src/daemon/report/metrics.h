/* The Prometheus endpoint: libmicrohttpd serves GET /metrics from its own
 * thread, out of a snapshot the event loop publishes under a mutex after
 * each tick, so a slow scraper never delays a control epoch. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "daemon/accounting/gpu_res.h"
#include "ipc/msg.h"

struct metrics_tenant {
	uint64_t id; /* the tenant's id, as in `baton status` */
	uid_t uid;   /* its owner */
	char name[IPC_NAME_MAX];
	pid_t pid;
	double sla_fps; /* its SLA (daemon_tenant_sla) */
	double target_fps;
	double fps;
	double frame_s[3]; /* quantiles 0.5, 0.9, 0.99 over the last 2 s */
	double below_sla_s;
	double gpu_share;
	double limited;   /* 1: cannot reach its reference (core/reach.h) */
	double reach_fps; /* the rate it could run at, unpaced */
	/* the capacity stage (core/caps.h) */
	double cap;        /* published cap, 0 = none */
	double budget;     /* the cap its gate enforces now, 0 = none */
	double u;          /* busy / budget over the last period */
	double overloaded; /* 1 while the capacity stage says so */
	double cap_bound;  /* 1 while its budget gate holds it back */
	/* The quality level in force (daemon_quality_level: the pin, else
	 * batond's choice, else the game's default; 0 = cheapest), for a
	 * game that declared levels (has_quality); others get no line. */
	bool has_quality;
	double quality_level;
	double gpu; /* the index of the GPU it renders on (gpus.h) */
	const char *gpu_source;    /* gpu_source_name: where gpu_share's time
	                              came from (a static string) */
	struct gpu_res_tenant res; /* its video share and VRAM */
};

/* One best-effort tenant (docs/harvesting.md). */
struct metrics_be {
	uint64_t id;
	uid_t uid;
	char name[IPC_NAME_MAX];
	pid_t pid;
	double units_s;    /* work units per second, smoothed */
	double gpu_share;  /* GPU share it used, smoothed */
	double wait_ratio; /* time waiting per second, smoothed */
	double budget;     /* GPU seconds per second it may use */
	double window_s;   /* longest sub-launch it may start now */
	double continuous; /* 1 in continuous mode */
	double stuck;      /* 1 while its sub-launch overran (hung) */
	double idle;       /* 1 in the idle-priority lane */
	double gpu;        /* the index of the GPU it runs on */
};

/* One GPU's controller (daemon/gpus.h): every figure a double, read by
 * offset when the families are written. */
#define METRICS_MAX_GPUS 16

/* One configured app profile and how many more sessions of it fit on
 * each GPU. */
#define METRICS_MAX_PROFILES 64
struct metrics_profile {
	char name[IPC_NAME_MAX];
	double admissible[METRICS_MAX_GPUS];
};
struct metrics_gpu {
	char name[32];
	char device[128];
	double util;
	double other_util; /* core_gpu.other_util */
	double sla_util;   /* core_gpu.sla_util */
	double overload;   /* core_gpu.overload, 1 or 0 */
	double common_fps; /* core_gpu.common_fps (ESA), 0 otherwise */
	double slot_s;     /* core_harvest_gpu.slot.len_s, 0 = none */
	double be_holder;  /* daemon_gpu.be_holder: the tenant whose frames
	                      shut the best-effort windows, 0 = none */
	double be_hold;    /* core_harvest_gpu.hold.reason (0 = open) */
	/* space harvesting (core/harvest_space.h): units to divide (0 =
	 * off), the games' group (0 = whole device), best-effort units */
	double space_units, space_split, space_be_units, space_switches;
	double total_load; /* core_caps_gpu.total_load */
	double cap_severe; /* core_caps_gpu.severe: capacity not advertised */
	double n_cap_overloaded;
	struct gpu_res res; /* its encoder and VRAM (gpu_res.h) */
};

struct metrics_snapshot {
	const char *policy;
	struct metrics_gpu gpus[METRICS_MAX_GPUS];
	size_t n_gpus;
	struct metrics_profile profiles[METRICS_MAX_PROFILES];
	size_t n_profiles;
	double tick_s;
	uint64_t ticks; /* control ticks since the start */
	const struct metrics_tenant *tenants;
	size_t n;
	const struct metrics_be *be;
	size_t n_be;
	/* Also label each tenant with its name and pid (metrics_names in the
	 * config). Off by default: /metrics answers every local user, while
	 * `baton status`, which shows them, is for admins only. */
	bool names;
};

struct metrics;

/* Starts listening on host:port (port 0 = ephemeral); names: see
 * metrics_snapshot.names. On success returns the endpoint and the bound
 * port in *bound; NULL with a reason naming the address (and the error,
 * "Address already in use" for a port someone else holds) in err.
 *
 * What a local user can do to it: the server polls (epoll, else poll), so
 * descriptors past FD_SETSIZE are fine; it serves METRICS_MAX_CONNS
 * connections at once, METRICS_MAX_PER_IP from one address (on loopback
 * every local user is 127.0.0.1: that bound protects from one remote
 * host, not from a local user), and drops one idle for METRICS_TIMEOUT_S
 * seconds. A client that trickles a byte more often than that holds its
 * slot; METRICS_MAX_PER_IP of them keep other scrapers from the same
 * address out (docs/runtime.md). */
struct metrics *metrics_start(const char *host, unsigned port, bool names,
                              unsigned *bound, char *err, size_t errlen);

#define METRICS_MAX_CONNS  256u
#define METRICS_MAX_PER_IP 64u
#define METRICS_TIMEOUT_S  3u
/* Stops the thread and frees everything (NULL is fine). */
void metrics_stop(struct metrics *m);

/* Copies *s in; the next scrape serves it. false when out of memory (the
 * previous snapshot stays). */
bool metrics_publish(struct metrics *m, const struct metrics_snapshot *s);

/* The exposition text of one snapshot, malloc'ed and NUL-terminated; NULL
 * when out of memory. */
char *metrics_format(const struct metrics_snapshot *s, size_t *len);
