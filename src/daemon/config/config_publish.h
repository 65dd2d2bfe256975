/* batond's `agones` and `kubernetes` config groups (docs/deploy.md): what
 * the publisher thread (publish.h) tells Agones' SDK sidecar and the
 * Kubernetes API server. Values left out come from the environment when
 * the publisher starts (publish_resolve), so that a file read here means
 * the same on any host. */
#pragma once

#include <libconfig.h>
#include <stdbool.h>
#include <stddef.h>

#include "ipc/msg.h"

#define PUBLISH_DEFAULT_COUNTER      "sessions"
#define PUBLISH_DEFAULT_RESOURCE     "baton.dev/game-sessions"
#define PUBLISH_DEFAULT_AGONES_PORT  9358
#define PUBLISH_SA_DIR               "/var/run/secrets/kubernetes.io/serviceaccount"
#define PUBLISH_DEFAULT_RETRY_MAX_MS 30000

struct daemon_agones_config {
	bool enabled;
	unsigned port; /* 0: AGONES_SDK_HTTP_PORT, else 9358 */
	char counter[64];
	char profile[IPC_NAME_MAX]; /* "": the first app with cost_ms */
	int health_ms;              /* Health every this often */
};

struct daemon_k8s_config {
	bool enabled;
	char resource[128];  /* an extended resource name, domain/name */
	char node_name[254]; /* "": NODE_NAME */
	/* "": https://KUBERNETES_SERVICE_HOST:KUBERNETES_SERVICE_PORT.
	 * https only: the token must not travel in clear. */
	char api[256];
	char token_file[256];
	char ca_file[256];
	char profile[IPC_NAME_MAX];
	int refresh_ms; /* patch again this often even with no change */
};

struct daemon_publish_config {
	struct daemon_agones_config agones;
	struct daemon_k8s_config k8s;
	int retry_max_ms; /* the back-off's cap (publish.h) */
};

void daemon_publish_defaults(struct daemon_publish_config *p);

/* One group, `agones` when k8s is false. false with why in why. */
bool daemon_publish_group(struct daemon_publish_config *p,
                          const config_setting_t *group, bool k8s, char *why,
                          size_t whylen, const config_setting_t **bad);

/* Whether an extended resource name is one Kubernetes takes: DOMAIN/NAME,
 * DOMAIN a DNS subdomain not kubernetes.io, NAME of [A-Za-z0-9._-] starting
 * and ending alphanumeric, 63 bytes at most. */
bool daemon_publish_resource_ok(const char *name);
