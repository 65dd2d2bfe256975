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

struct daemon;
struct publisher;

/* What one target (Agones, Kubernetes) is told: sessions running and the
 * capacity, sessions + what core_caps_admit admits of its profile. */
struct publish_numbers {
	int64_t count;
	int64_t capacity;
};

/* The loop's view each tick, for one profile. */
struct publish_input {
	bool valid; /* false: no tick yet, or the profile is unknown */
	uint32_t sessions;
	bool fits;
	uint32_t more;
	bool severe; /* core_caps_gpu.severe */
};

/* count = sessions; capacity = count + more when it fits, else count:
 * on overload (severe, or admission refused) no new session may be
 * allocated here (docs/capacity.md). */
struct publish_numbers publish_decide(const struct publish_input *in);

/* ---- back-off and rate-limited logging (publish.c) ---- */

#define PUBLISH_BACKOFF_MIN_NS 500000000LL /* 0.5 s */

struct publish_backoff {
	int64_t delay_ns; /* the next failure's wait; 0 = none yet */
	int64_t next_ns;  /* no attempt before this */
	unsigned failures;
};
/* A failure at now: wait delay (0.5 s, doubling up to max_ns). */
void publish_backoff_fail(struct publish_backoff *b, int64_t now_ns,
                          int64_t max_ns);
void publish_backoff_ok(struct publish_backoff *b);
bool publish_backoff_due(const struct publish_backoff *b, int64_t now_ns);

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

/* What the control loop calls after each tick: the inputs of both
 * profiles from d, handed over. Nothing when d->publisher is NULL. */
void publish_offer(struct daemon *d);

/* The app entry whose admission a target publishes: the one named, else
 * the first with cost_ms; NULL when there is none such. */
struct daemon_app;
struct daemon_config;
const struct daemon_app *publish_profile(const struct daemon_config *cfg,
                                         const char *name);

/* Counters for tests and the benchmark. */
struct publish_stats {
	uint64_t requests, failures;
	bool agones_ready;
	uint64_t handoffs_skipped; /* publisher_update found the lock held */
};
void publisher_stats(struct publisher *p, struct publish_stats *out);
