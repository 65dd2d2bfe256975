/* The publisher thread's parts (publish.c, publish_http.c,
 * publish_agones.c, publish_k8s.c); not for the rest of batond. */
#pragma once

#include <curl/curl.h>

#include "daemon/config/config_publish.h"
#include "daemon/publish/publish_backoff.h"
#include "daemon/publish/publish_decide.h"
#include "util/log_gate.h"

struct publish_stats;

#define PUBLISH_TIMEOUT_MS 2000
#define PUBLISH_CONNECT_MS 1000

struct publish_reply {
	long status; /* HTTP status, 0 when none came */
	char *body;  /* NUL-terminated, heap; NULL when none */
	size_t len;
	char err[CURL_ERROR_SIZE]; /* why, when status is 0 */
};

/* One request on h, reset first: no redirects followed, no signals, 2 s
 * in all, the answer read up to PUBLISH_BODY_MAX bytes (more is an
 * error), only the scheme of url (http or https) allowed. headers may be
 * NULL; cafile NULL keeps curl's default store. false when no HTTP
 * answer came (r->err says why); r->body is the caller's to free. */
bool publish_http(CURL *h, const char *method, const char *url,
                  struct curl_slist *headers, const char *body,
                  const char *cafile, struct publish_reply *r);
void publish_reply_free(struct publish_reply *r);

/* One peer: its handle, back-off and log limit. */
struct publish_peer {
	const char *what; /* "agones", "kubernetes" */
	CURL *h;
	struct publish_backoff bo;
	struct log_gate log;
	int64_t retry_max_ns;
	bool failing;
	struct publish_stats *stats;
};

/* A failed step: back off, log at most once per PUBLISH_LOG_GAP_NS. */
void publish_peer_fail(struct publish_peer *p, int64_t now_ns, const char *fmt,
                       ...) __attribute__((format(printf, 3, 4)));
void publish_peer_ok(struct publish_peer *p);
/* why of a reply that is not a success: "HTTP 500", "timeout ..." */
void publish_reply_why(const struct publish_reply *r, char *out, size_t len);

struct publish_agones {
	struct publish_peer peer;
	char base[64]; /* http://localhost:PORT */
	char counter[64];
	int64_t health_ns;
	int64_t health_at, counter_at;
	struct publish_backoff health_bo;
	bool ready, sent;
	struct publish_numbers last;
};
bool publish_agones_init(struct publish_agones *a,
                         const struct daemon_publish_config *cfg, char *err,
                         size_t errlen);
void publish_agones_step(struct publish_agones *a,
                         const struct publish_input *in, int64_t now_ns);

struct publish_k8s {
	struct publish_peer peer;
	char url[600];
	char resource[128];
	char token_file[256];
	char ca_file[256];
	int64_t refresh_ns;
	int64_t at;
	bool sent;
	int64_t last;
};
bool publish_k8s_init(struct publish_k8s *k,
                      const struct daemon_publish_config *cfg, char *err,
                      size_t errlen);
void publish_k8s_step(struct publish_k8s *k, const struct publish_input *in,
                      int64_t now_ns);
