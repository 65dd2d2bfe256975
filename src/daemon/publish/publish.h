/* Publishing the GPU's admissible sessions to Agones and Kubernetes
 * (docs/deploy.md). The control loop hands a few numbers over under a
 * mutex after each tick (publish_offer: no allocation, no I/O); one
 * publisher thread does every HTTP call with libcurl, each bounded by a
 * 2 s timeout, and backs off exponentially while its peer is absent, slow
 * or answering errors, so that nothing on the network can delay pacing
 * (docs/architecture.md, "batond's threads"). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/config/config_publish.h"
#include "daemon/publish/publish_decide.h"

struct publisher;

/* ---- rate-limited logging ---- */

/* At most one line every PUBLISH_LOG_GAP_NS per peer (util/log_gate.h). */
#define PUBLISH_LOG_GAP_NS 10000000000LL

/* ---- the thread ---- */

/* The endpoints resolved from the config and the environment
 * (AGONES_SDK_HTTP_PORT, NODE_NAME, KUBERNETES_SERVICE_HOST and _PORT).
 * NULL with why in err when an enabled target cannot be reached at all
 * (no node name, no API server address); NULL with err "" when neither is
 * enabled. */
struct publisher *publisher_start(const struct daemon_publish_config *cfg,
                                  char *err, size_t errlen);
void publisher_stop(struct publisher *p);

/* The handoff: copies in under the publisher's mutex, which the thread
 * reads every 100 ms. Never waits and never wakes the thread: when the
 * thread holds the mutex, the handoff is left to the next call. agones or
 * k8s may be NULL. */
void publisher_update(struct publisher *p, const struct publish_input *agones,
                      const struct publish_input *k8s);

/* Counters for tests and the benchmark. */
struct publish_stats {
	uint64_t requests, failures;
	bool agones_ready;
	uint64_t handoffs_skipped; /* publisher_update found the lock held */
};
void publisher_stats(struct publisher *p, struct publish_stats *out);
