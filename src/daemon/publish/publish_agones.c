/* Agones' SDK sidecar through its REST gateway (docs/deploy.md). Routes
 * and bodies as in Agones v1.56.0's sdks/swagger: sdk.swagger.json's
 * POST /ready and POST /health with an sdkEmpty body ({}), and
 * beta.swagger.json's PATCH /v1beta1/counters/{name} with a
 * CounterUpdateRequest, answered with the Counter (needs Agones'
 * CountsAndLists feature and the counter in the GameServer's spec).
 *
 * The counter is set before Ready, so that the GameServer is never
 * allocated on a capacity batond has not published; it is set again on a
 * change and every PUBLISH_AGONES_REFRESH_NS. Health goes every health_ms
 * on its own timer, whatever the counter's fate: a counter Agones refuses
 * is a configuration error to log, not a reason for Agones to restart the
 * pod. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/publish/publish_body.h"
#include "daemon/publish/publish.h"
#include "daemon/publish/publish_int.h"
#include "util/log.h"

#define PUBLISH_AGONES_REFRESH_NS 10000000000LL

bool publish_agones_init(struct publish_agones *a,
                         const struct daemon_publish_config *cfg, char *err,
                         size_t errlen)
{
	unsigned port = cfg->agones.port;
	const char *env = getenv("AGONES_SDK_HTTP_PORT");
	if (!port && env && *env) {
		char *end;
		unsigned long v = strtoul(env, &end, 10);
		if (*end || v == 0 || v > 65535) {
			snprintf(err, errlen,
			         "AGONES_SDK_HTTP_PORT=\"%.16s\" is not a port",
			         env);
			return false;
		}
		port = (unsigned)v;
	}
	if (!port)
		port = PUBLISH_DEFAULT_AGONES_PORT;
	snprintf(a->base, sizeof(a->base), "http://localhost:%u", port);
	snprintf(a->counter, sizeof(a->counter), "%s", cfg->agones.counter);
	a->health_ns = (int64_t)cfg->agones.health_ms * 1000000LL;
	a->peer.what = "agones";
	a->peer.retry_max_ns = (int64_t)cfg->retry_max_ms * 1000000LL;
	return true;
}

/* One JSON request; the answer's body, else NULL after logging. */
static char *call(struct publish_agones *a, const char *method,
                  const char *path, const char *body, int64_t now, size_t *len)
{
	char url[256];
	snprintf(url, sizeof(url), "%s%s", a->base, path);
	struct curl_slist *hdr =
	    curl_slist_append(NULL, "Content-Type: application/json");
	struct curl_slist *h2 =
	    hdr ? curl_slist_append(hdr, "Accept: application/json") : NULL;
	if (!h2) {
		curl_slist_free_all(hdr);
		publish_peer_fail(&a->peer, now, "out of memory");
		return NULL;
	}
	struct publish_reply r;
	a->peer.stats->requests++;
	bool got = publish_http(a->peer.h, method, url, h2, body, NULL, &r);
	curl_slist_free_all(h2);
	if (!got || r.status < 200 || r.status > 299) {
		char why[160];
		publish_reply_why(&r, why, sizeof(why));
		publish_peer_fail(&a->peer, now, "%s %s: %s", method, path,
		                  why);
		publish_reply_free(&r);
		return NULL;
	}
	*len = r.len;
	return r.body ? r.body : strdup("");
}

static bool empty_call(struct publish_agones *a, const char *path, int64_t now)
{
	size_t len = 0;
	char *b = call(a, "POST", path, "{}", now, &len);
	if (!b)
		return false;
	bool ok = publish_agones_empty_ok(b, len);
	free(b);
	if (!ok)
		publish_peer_fail(&a->peer, now,
		                  "POST %s: the answer is not a JSON object",
		                  path);
	return ok;
}

static bool set_counter(struct publish_agones *a, struct publish_numbers n,
                        int64_t now)
{
	char path[128];
	snprintf(path, sizeof(path), "/v1beta1/counters/%s", a->counter);
	char *body = publish_agones_counter_body(n.count, n.capacity);
	if (!body) {
		publish_peer_fail(&a->peer, now, "out of memory");
		return false;
	}
	size_t len = 0;
	char *b = call(a, "PATCH", path, body, now, &len);
	free(body);
	if (!b)
		return false;
	int64_t count = -1, cap = -1;
	bool ok =
	    publish_agones_counter_parse(b, len, a->counter, &count, &cap) &&
	    count == n.count && cap == n.capacity;
	free(b);
	if (!ok) {
		publish_peer_fail(
		    &a->peer, now,
		    "PATCH %s: the answer is not counter \"%s\" at "
		    "count %lld, capacity %lld",
		    path, a->counter, (long long)n.count,
		    (long long)n.capacity);
		return false;
	}
	if (!a->sent || n.capacity != a->last.capacity)
		log_info("agones: counter %s at %lld of %lld", a->counter,
		         (long long)n.count, (long long)n.capacity);
	return true;
}

void publish_agones_step(struct publish_agones *a,
                         const struct publish_input *in, int64_t now)
{
	if (!in->valid)
		return;
	if (now - a->health_at >= a->health_ns &&
	    publish_backoff_due(&a->health_bo, now)) {
		if (empty_call(a, "/health", now)) {
			a->health_at = now;
			publish_backoff_ok(&a->health_bo);
		} else {
			/* the peer's own back-off is not Health's: a
			 * counter refused must not stop it */
			publish_backoff_fail(&a->health_bo, now, a->health_ns);
			return;
		}
	}
	if (!publish_backoff_due(&a->peer.bo, now))
		return;
	struct publish_numbers want = publish_decide(in);
	if (!a->sent || want.count != a->last.count ||
	    want.capacity != a->last.capacity ||
	    now - a->counter_at >= PUBLISH_AGONES_REFRESH_NS) {
		if (!set_counter(a, want, now))
			return;
		a->sent = true;
		a->last = want;
		a->counter_at = now;
	}
	if (!a->ready) {
		if (!empty_call(a, "/ready", now))
			return;
		a->ready = true;
		a->peer.stats->agones_ready = true;
		log_info("agones: Ready");
	}
	publish_peer_ok(&a->peer);
}
