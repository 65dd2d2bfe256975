/* Messages of proto.h: one JSON object per line, parsed with jansson into
 * a tagged struct with every field type- and range-checked, and the
 * daemon's replies encoded. Daemon and CLI side (not the shim). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "ipc/proto.h"

#define IPC_NAME_MAX 64 /* tenant name bytes, NUL included */
#define IPC_FPS_MIN                                                            \
	1.0                /* a rate given is at least this (0 means           \
	                      "none" where proto.h says so): an SLA of         \
	                      5e-324 FPS would mean "unpaced" */
#define IPC_FPS_MAX 1000.0 /* sla_fps and fixed_fps lie in [MIN, this] */
/* A best-effort tenant's weight lies in (0, this]; 1 when not given. */
#define IPC_BE_WEIGHT_MAX 1000.0

enum ipc_msg_type {
	IPC_MSG_HELLO = 1,
	IPC_MSG_SET,
	IPC_MSG_POLICY,
	IPC_MSG_STATUS,
	IPC_MSG_CAPACITY,
	IPC_MSG_GPUS,  /* the GPUs batond runs a controller for (anyone) */
	IPC_MSG_PLACE, /* which GPU a new session goes to (anyone) */
};

enum ipc_role {
	IPC_ROLE_TENANT = 1,
	IPC_ROLE_CLIENT,
	IPC_ROLE_BE, /* a best-effort tenant (docs/harvesting.md) */
};

struct ipc_msg_hello {
	int version;
	enum ipc_role role;
	/* tenant and be */
	char name[IPC_NAME_MAX];
	double sla_fps;    /* 0 = the daemon's default */
	double fixed_fps;  /* 0 = not pinned */
	char api[16];      /* "gl", "vulkan", ... informative */
	char gpu[32];      /* the GPU it runs on, by batond's name or device
	                      ("" = batond decides; daemon/gpus.h) */
	char gpu_uuid[48]; /* its device's UUID (Vulkan's deviceUUID, GL's
	                      GL_DEVICE_UUID_EXT), "" = unknown */
	double cap;        /* published GPU cap in (0, 1]; 0 = none given */
	/* be only (a be hello refuses sla_fps and fixed_fps: no pacing) */
	double weight;  /* (0, IPC_BE_WEIGHT_MAX]; 1 when not given */
	bool partition; /* its device is its CPUs: it can run on a space
	                   partition (core/harvest_space.h); false when
	                   not given */
	bool idle;      /* and it follows the idle-priority lane
	                   (core/harvest_idle.h); false when not given */
};

/* Without name, id or uid: the sender's own tenant (on its tenant
 * connection). With any of them: every tenant that matches all given; a
 * name that matches tenants of more than one uid is refused unless uid
 * narrows it or all is set (requests.c). */
struct ipc_msg_set {
	bool has_name; /* name the tenant(s) */
	char name[IPC_NAME_MAX];
	bool has_id; /* the tenant of that welcome id */
	unsigned long long id;
	bool has_uid; /* the tenants of that owner */
	unsigned long uid;
	bool all; /* a name may match several users' tenants */
	/* at least one of these is set */
	bool has_sla, has_fixed, has_cap, has_wc, has_weight, has_level;
	double sla_fps, fixed_fps;
	double weight; /* best-effort tenants only, (0, IPC_BE_WEIGHT_MAX] */
	double cap;    /* (0, 1]; 0 = remove the published cap */
	bool work_conserving; /* may run past its cap while the GPU idles */
	int level; /* games with the quality API: pin this level (one the
	              game declared), -1 = unpin */
};

/* Does one more session fit: of a profile (a configured app, or a program
 * the asker runs whose cost batond learned), or of a cost and an SLA. */
struct ipc_msg_capacity {
	bool has_profile;
	char profile[IPC_NAME_MAX];
	double cost_ms; /* GPU ms per frame, (0, 10000]; without a profile */
	double sla_fps; /* [IPC_FPS_MIN, IPC_FPS_MAX]; without a profile */
	/* What else one session needs (core/admit_res.h), either way; with
	 * a profile they replace its own. 0 = not given. */
	double encoder; /* share of the GPU's encoder, (0, 1] */
	double vram_mb; /* resident VRAM, (0, IPC_VRAM_MB_MAX] MiB */
};

#define IPC_COST_MS_MAX 10000.0
/* The largest VRAM a request or batond's config names, in MiB (16 TiB). */
#define IPC_VRAM_MB_MAX 16777216.0

/* Where a new session goes (`baton run` without --gpu): the same session
 * as capacity's, whose cost may also be unknown (neither field: batond
 * places it by load alone; a profile it does not know: the same). */
struct ipc_msg_place {
	bool has_profile;
	char profile[IPC_NAME_MAX];
	bool has_cost;  /* cost_ms and sla_fps, given together */
	double cost_ms; /* (0, IPC_COST_MS_MAX] */
	double sla_fps; /* [IPC_FPS_MIN, IPC_FPS_MAX] */
};

struct ipc_msg_policy {
	char name[16];
};

struct ipc_msg {
	enum ipc_msg_type type;
	union {
		struct ipc_msg_hello hello;
		struct ipc_msg_set set;
		struct ipc_msg_policy policy;
		struct ipc_msg_capacity capacity;
		struct ipc_msg_place place;
	};
};

/* Why a message was refused: code is one of proto.h's BATON_ERR_*. */
struct ipc_msg_error {
	const char *code;
	char message[160];
};

/* Parses one line (without its newline). Invalid JSON, a non-object, a
 * missing or unknown "type" are BATON_ERR_PROTOCOL; a hello with another
 * version BATON_ERR_VERSION; a missing, wrongly typed or out-of-range field
 * BATON_ERR_INVALID. Unknown extra fields are ignored (a later version may
 * add some). */
bool ipc_msg_parse(const char *line, size_t len, struct ipc_msg *out,
                   struct ipc_msg_error *err);

/* Tenant names end up in terminal tables, Prometheus labels and logs. A
 * name is cleaned where it is parsed (hello and set): every C0 and C1
 * control character, DEL, the bidi embeddings, overrides and isolates
 * (U+202A-202E, U+2066-2069, U+061C), the zero-width and direction marks
 * (U+200B-200F, U+2060-2064, U+FEFF) and the line and paragraph
 * separators (U+2028, U+2029) become '?'. Replaced, not refused: the name
 * comes from the game's executable or BATON_NAME, and a game must not go
 * unpaced and unseen for its name; '?' is one byte, so the name never
 * grows past the bound it was checked against. s is valid UTF-8 (jansson
 * guarantees it); cleaned in place. Returns how many were replaced. */
size_t ipc_name_clean(char *s);

/* Copies src into dst (cap bytes, NUL included) with every byte outside
 * printable ASCII written as \xNN, truncated with "..." when it does not
 * fit: for peer-supplied text on its way to a log. Returns dst. */
char *ipc_escape(char *dst, size_t cap, const char *src);

/* Encoders: a malloc'ed line ending in '\n' (NULL only when out of
 * memory). */
char *ipc_msg_encode(json_t *obj);   /* steals the reference */
char *ipc_msg_welcome(long long id); /* id < 0: none (clients) */
char *ipc_msg_ok(void);
char *ipc_msg_error_line(const char *code, const char *message);
char *ipc_msg_hello_client(void);
