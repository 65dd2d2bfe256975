/* Messages of proto.h: one JSON object per line, parsed with jansson into
 * a tagged struct with every field type- and range-checked, and the
 * daemon's replies encoded. Daemon and CLI side (not the shim). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "ipc/proto.h"

#define IPC_NAME_MAX 64     /* tenant name bytes, NUL included */
#define IPC_FPS_MAX  1000.0 /* sla_fps and fixed_fps lie in [0, this] */

enum ipc_msg_type {
	IPC_MSG_HELLO = 1,
	IPC_MSG_SET,
	IPC_MSG_POLICY,
	IPC_MSG_STATUS,
};

enum ipc_role {
	IPC_ROLE_TENANT = 1,
	IPC_ROLE_CLIENT,
};

struct ipc_msg_hello {
	int version;
	enum ipc_role role;
	/* tenant only */
	char name[IPC_NAME_MAX];
	double sla_fps;   /* 0 = the daemon's default */
	double fixed_fps; /* 0 = not pinned */
	char api[16];     /* "gl", "vulkan", ... informative */
};

struct ipc_msg_set {
	bool has_name; /* admin form: name the tenant; else "my own" */
	char name[IPC_NAME_MAX];
	bool has_sla, has_fixed; /* at least one is set */
	double sla_fps, fixed_fps;
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

/* Encoders: a malloc'ed line ending in '\n' (NULL only when out of
 * memory). */
char *ipc_msg_encode(json_t *obj);   /* steals the reference */
char *ipc_msg_welcome(long long id); /* id < 0: none (clients) */
char *ipc_msg_ok(void);
char *ipc_msg_error_line(const char *code, const char *message);
char *ipc_msg_hello_client(void);
