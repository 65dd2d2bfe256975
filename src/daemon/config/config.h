/* batond's settings: defaults, then a libconfig file (--config), then the
 * command line, each overriding the one before. */
#pragma once

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>
#include <sys/un.h>

#include "core/harvest.h"
#include "core/place.h"
#include "core/policy.h"
#include "daemon/gpus.h"
#include "daemon/config/config_publish.h"
#include "ipc/msg.h"

#define DAEMON_DEFAULT_SLA      30.0
#define DAEMON_DEFAULT_EPOCH_MS 100
#define DAEMON_DEFAULT_METRICS  "127.0.0.1:9477"
/* Tenants one uid may have registered at once: a game or two per user
 * with room, while one user cannot fill the registry (each tenant costs
 * a mapping, ring reads and a share of every tick). */
#define DAEMON_DEFAULT_MAX_TENANTS_PER_UID 32
/* Connections one uid may hold (root and the daemon's own user are not
 * counted against it); a game holds one, `baton` one per command. */
#define DAEMON_DEFAULT_CONNS_PER_UID 64
/* From accept to a complete hello. */
#define DAEMON_DEFAULT_HELLO_MS 2000
/* Time for a game placed by `baton run` to start and register. */
#define DAEMON_DEFAULT_PLACE_HOLD_MS 30000
/* Where `baton profile` models are looked up: DIR/GAME_ID.json. */
#define DAEMON_DEFAULT_MODELS "/var/lib/baton/models"

/* Per-application entries (apps = ( { name = "glmark2"; ... } );) and
 * per-user caps (user_caps = ( { uid = 1000; cap = 0.5; } );). */
#define DAEMON_MAX_APPS      64
#define DAEMON_MAX_USER_CAPS 256

struct daemon_app {
	char name[IPC_NAME_MAX]; /* the tenant name it applies to */
	double cap;              /* published cap, (0, 1]; 0 = none */
	bool has_wc;
	bool work_conserving;
	/* Its admission profile: GPU ms per frame and its SLA; 0 = none
	 * (then `baton capacity --profile` cannot use it). */
	double cost_ms;
	double sla_fps;
	/* Its other resources (core/admit_res.h): its stream's share of
	 * the GPU's encoder, (0, 1], and its resident VRAM in MiB; 0 =
	 * none declared. */
	double encoder;
	double vram_mb;
};

struct daemon_config {
	char socket_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	const struct core_policy *policy;
	double default_sla; /* for tenants that registered with sla_fps 0 */
	int epoch_ms;
	bool metrics_on;
	char metrics_host[64]; /* numeric or a name; no brackets */
	unsigned metrics_port; /* 0 = ephemeral */
	bool metrics_names;    /* label tenants with name and pid (metrics.h) */
	char record_path[256]; /* the history file (record.h); "" = none */
	int max_conns_per_uid;
	int hello_timeout_ms;
	struct core_params params;
	/* time harvesting (the harvest group; docs/harvesting.md) */
	struct core_harvest_params harvest;
	unsigned max_tenants_per_uid; /* 0 = no cap */
	/* The subordinate-uid file whose ranges decide who owns a uid for
	 * the per-uid limits (owners.h); "" = none. */
	char subuid_path[256];
	/* Members (supplementary groups included) may send admin requests,
	 * besides root, the daemon's user and its group. */
	bool has_admin_group;
	gid_t admin_gid;
	struct daemon_app apps[DAEMON_MAX_APPS];
	size_t n_apps;
	struct core_owner_cap user_caps[DAEMON_MAX_USER_CAPS];
	size_t n_user_caps;
	/* The quality lever's model files (params.quality_on: --quality) */
	char models_dir[256];
	/* The GPUs (daemon/gpus.h); none: discovered */
	struct daemon_gpu_conf gpus[DAEMON_MAX_GPUS];
	size_t n_gpus;
	/* Agones and Kubernetes (the agones and kubernetes groups) */
	struct daemon_publish_config publish;
	/* The MPS control tool space harvesting drives on an NVIDIA GPU
	 * (space_mps.h); "" = none */
	char mps_control[256];
	/* Where tenants' DRM clients are read (gpu_account.h): "" is
	 * "/proc"; an operator's or a test's fake tree otherwise. The
	 * config's, never a peer's. */
	char fdinfo_root[256];
	/* Where `baton run` without --gpu puts a session among the GPUs
	 * that admit it (core/place.h): spread (the default) or pack. */
	enum core_place_mode placement;
	/* How long a GPU that placement gave a session keeps its seat for
	 * it, unless it registers there first (core/place_hold.h); 0: off. */
	int place_hold_ms;
};

/* The size of a field of struct daemon_config, for the messages that
 * state its limit. */
#define DAEMON_CONFIG_FIELD_SIZE(f) sizeof(((struct daemon_config *)0)->f)

/* The app entry of that tenant name, or NULL. */
const struct daemon_app *daemon_config_app(const struct daemon_config *cfg,
                                           const char *name);

/* The app entry whose admission a publisher target (Agones, Kubernetes)
 * publishes: the one named, else the first with cost_ms; NULL when there
 * is none such. */
const struct daemon_app *
daemon_config_publish_app(const struct daemon_config *cfg, const char *name);

/* Defaults: the socket of ipc_socket_path(), sa, 30 FPS, 100 ms, metrics on
 * 127.0.0.1:9477, 64 connections per uid, a 2 s hello deadline,
 * core_params_default(), core_harvest_params_default(). false if the
 * socket path does not fit. */
bool daemon_config_defaults(struct daemon_config *cfg);

/* Reads a libconfig file into cfg. On failure false with "file:line:
 * field: reason" in err. */
bool daemon_config_file(struct daemon_config *cfg, const char *path, char *err,
                        size_t errlen);

/* "off" or HOST:PORT ("[::1]:9477" for IPv6). false if malformed. */
bool daemon_config_metrics(struct daemon_config *cfg, const char *spec);

enum daemon_args_result {
	DAEMON_ARGS_RUN = 0,
	DAEMON_ARGS_EXIT_OK, /* --help or --version printed */
	DAEMON_ARGS_USAGE,   /* error printed; exit 2 */
};

/* The whole command line of batond, config file included. Errors go to
 * err_out. */
enum daemon_args_result daemon_config_args(struct daemon_config *cfg, int argc,
                                           char **argv, FILE *err_out);

void daemon_usage(FILE *out);

/* ---- validators ----
 * What the command line (config_args.c) and the config file
 * (config_file.c) share. Each returns false, leaving cfg as it was, for a
 * value out of range. */

bool daemon_config_set_policy(struct daemon_config *cfg, const char *name);
bool daemon_config_set_sla(struct daemon_config *cfg, double v);
bool daemon_config_set_epoch(struct daemon_config *cfg, long long ms);
bool daemon_config_set_socket(struct daemon_config *cfg, const char *path);
/* "off", "baton" (Baton's budget and exact reassignment) or "paper"
 * (dJay's 33 ms, greedy): params.quality_on / quality_paper / quality. */
bool daemon_config_set_quality(struct daemon_config *cfg, const char *mode);
/* An absolute directory path that fits models_dir. */
bool daemon_config_set_models(struct daemon_config *cfg, const char *dir);
/* The history file: a path of 1 to 255 bytes, or "off" (none). */
bool daemon_config_set_record(struct daemon_config *cfg, const char *path);
/* The subordinate-uid file (owners.h): an absolute path under 256 bytes,
 * or "off" (none). */
bool daemon_config_set_subuid(struct daemon_config *cfg, const char *path);
/* The MPS control program (nvidia-cuda-mps-control): an absolute path, or
 * "off". */
bool daemon_config_set_mps(struct daemon_config *cfg, const char *path);
/* fdinfo_root: an absolute directory path, or "/proc" (the default). */
bool daemon_config_set_fdinfo_root(struct daemon_config *cfg, const char *path);
/* placement: "pack" or "spread". */
bool daemon_config_set_placement(struct daemon_config *cfg, const char *mode);
/* A group name, or a gid written as a number. */
bool daemon_config_set_admin_group(struct daemon_config *cfg, const char *name);
