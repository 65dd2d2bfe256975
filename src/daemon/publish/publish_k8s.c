/* The node's admissible sessions as an extended resource (docs/deploy.md):
 * PATCH /api/v1/nodes/NODE/status with a JSON patch (RFC 6902,
 * application/json-patch+json) that adds status.capacity[RESOURCE] and
 * status.allocatable[RESOURCE], as Kubernetes' "Advertise Extended
 * Resources for a Node" does, with the pod's service-account token as
 * bearer and its CA as the only trust anchor. The value is count +
 * admissible (publish_decide): the scheduler subtracts what the pods
 * placed here already request. Sent on a change and every refresh_ms. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/publish/publish_body.h"
#include "daemon/publish/publish.h"
#include "daemon/publish/publish_int.h"
#include "util/log.h"

bool publish_k8s_init(struct publish_k8s *k,
                      const struct daemon_publish_config *cfg, char *err,
                      size_t errlen)
{
	const struct daemon_k8s_config *c = &cfg->k8s;
	const char *node = c->node_name[0] ? c->node_name : getenv("NODE_NAME");
	if (!node || !*node) {
		snprintf(err, errlen,
		         "kubernetes: no node name (node_name, or NODE_NAME "
		         "from the downward API)");
		return false;
	}
	char path[400];
	if (!publish_k8s_path(node, path, sizeof(path))) {
		snprintf(err, errlen, "kubernetes: node name too long");
		return false;
	}
	char api[512];
	if (c->api[0]) {
		snprintf(api, sizeof(api), "%s", c->api);
	} else {
		const char *host = getenv("KUBERNETES_SERVICE_HOST");
		const char *port = getenv("KUBERNETES_SERVICE_PORT");
		if (!host || !*host || !port || !*port ||
		    strlen(host) + strlen(port) > 200) {
			snprintf(err, errlen,
			         "kubernetes: no API server (api, or "
			         "KUBERNETES_SERVICE_HOST and _PORT)");
			return false;
		}
		bool v6 = strchr(host, ':') != NULL;
		snprintf(api, sizeof(api), "https://%s%s%s:%s", v6 ? "[" : "",
		         host, v6 ? "]" : "", port);
	}
	size_t al = strlen(api);
	while (al && api[al - 1] == '/')
		api[--al] = '\0';
	if (snprintf(k->url, sizeof(k->url), "%s%s", api, path) >=
	    (int)sizeof(k->url)) {
		snprintf(err, errlen, "kubernetes: API server URL too long");
		return false;
	}
	snprintf(k->resource, sizeof(k->resource), "%s", c->resource);
	snprintf(k->token_file, sizeof(k->token_file), "%s", c->token_file);
	snprintf(k->ca_file, sizeof(k->ca_file), "%s", c->ca_file);
	k->refresh_ns = (int64_t)c->refresh_ms * 1000000LL;
	k->peer.what = "kubernetes";
	k->peer.retry_max_ns = (int64_t)cfg->retry_max_ms * 1000000LL;
	return true;
}

/* "Authorization: Bearer TOKEN", read anew each time: the kubelet rotates
 * projected tokens. false when unreadable or not one printable line. */
static bool bearer(const char *file, char *out, size_t len)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return false;
	char tok[8192];
	ssize_t n = read(fd, tok, sizeof(tok) - 1);
	close(fd);
	if (n <= 0)
		return false;
	while (n > 0 &&
	       (tok[n - 1] == '\n' || tok[n - 1] == '\r' || tok[n - 1] == ' '))
		n--;
	tok[n] = '\0';
	for (ssize_t i = 0; i < n; i++)
		if ((unsigned char)tok[i] <= 0x20 ||
		    (unsigned char)tok[i] >= 0x7f)
			return false;
	return n > 0 &&
	       snprintf(out, len, "Authorization: Bearer %s", tok) < (int)len;
}

static bool patch(struct publish_k8s *k, int64_t want, int64_t now)
{
	char auth[8300];
	if (!bearer(k->token_file, auth, sizeof(auth))) {
		publish_peer_fail(&k->peer, now, "cannot read a token from %s",
		                  k->token_file);
		return false;
	}
	char *body = publish_k8s_patch_body(k->resource, want);
	struct curl_slist *h = NULL, *t;
	const char *lines[] = {"Content-Type: application/json-patch+json",
	                       "Accept: application/json", auth};
	for (size_t i = 0; i < 3; i++) {
		t = curl_slist_append(h, lines[i]);
		if (!t)
			break;
		h = t;
	}
	if (!body || !t) {
		free(body);
		curl_slist_free_all(h);
		publish_peer_fail(&k->peer, now, "out of memory");
		return false;
	}
	struct publish_reply r;
	k->peer.stats->requests++;
	bool got =
	    publish_http(k->peer.h, "PATCH", k->url, h, body, k->ca_file, &r);
	explicit_bzero(auth, sizeof(auth));
	curl_slist_free_all(h);
	free(body);
	int64_t n = -1;
	bool ok = got && r.status >= 200 && r.status <= 299 &&
	          publish_k8s_node_parse(r.body, r.len, k->resource, &n) &&
	          n == want;
	if (!ok) {
		char why[256];
		if (got && r.status >= 200 && r.status <= 299)
			snprintf(why, sizeof(why),
			         "the answer is not the node with %s at %lld",
			         k->resource, (long long)want);
		else
			publish_reply_why(&r, why, sizeof(why));
		publish_peer_fail(&k->peer, now, "PATCH node status: %s", why);
	}
	publish_reply_free(&r);
	return ok;
}

void publish_k8s_step(struct publish_k8s *k, const struct publish_input *in,
                      int64_t now)
{
	if (!in->valid || !publish_backoff_due(&k->peer.bo, now))
		return;
	int64_t want = publish_decide(in).capacity;
	if (k->sent && want == k->last && now - k->at < k->refresh_ns)
		return;
	if (!patch(k, want, now))
		return;
	if (!k->sent || want != k->last)
		log_info("kubernetes: %s = %lld", k->resource, (long long)want);
	k->sent = true;
	k->last = want;
	k->at = now;
	publish_peer_ok(&k->peer);
}
