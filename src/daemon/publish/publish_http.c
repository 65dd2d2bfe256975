/* One bounded HTTP request with libcurl (publish_int.h). batond runs as
 * root: no redirects, no shell, no unbounded read, one scheme. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/publish/publish_body.h"
#include "daemon/publish/publish.h"
#include "daemon/publish/publish_int.h"
#include "util/log.h"

struct sink {
	char *buf;
	size_t len;
	bool over;
};

static size_t take(char *data, size_t size, size_t n, void *userdata)
{
	struct sink *s = userdata;
	size_t k = size * n;
	if (s->len + k > PUBLISH_BODY_MAX) {
		s->over = true;
		return 0; /* curl stops: CURLE_WRITE_ERROR */
	}
	char *b = realloc(s->buf, s->len + k + 1);
	if (!b)
		return 0;
	memcpy(b + s->len, data, k);
	s->buf = b;
	s->len += k;
	s->buf[s->len] = '\0';
	return k;
}

bool publish_http(CURL *h, const char *method, const char *url,
                  struct curl_slist *headers, const char *body,
                  const char *cafile, struct publish_reply *r)
{
	*r = (struct publish_reply){0};
	struct sink s = {0};
	curl_easy_reset(h);
	bool https = strncmp(url, "https://", 8) == 0;
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, https ? "https" : "http");
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)PUBLISH_TIMEOUT_MS);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS,
	                 (long)PUBLISH_CONNECT_MS);
	curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, r->err);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, take);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &s);
	curl_easy_setopt(h, CURLOPT_USERAGENT, "batond");
	if (headers)
		curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
	if (body)
		curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
	if (https) {
		curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 1L);
		curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 2L);
		if (cafile)
			curl_easy_setopt(h, CURLOPT_CAINFO, cafile);
	}
	CURLcode rc = curl_easy_perform(h);
	/* nothing of ours may outlive the call inside the handle */
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, NULL);
	if (s.over) {
		free(s.buf);
		snprintf(r->err, sizeof(r->err), "answer over %d bytes",
		         PUBLISH_BODY_MAX);
		return false;
	}
	if (rc != CURLE_OK) {
		free(s.buf);
		if (!r->err[0])
			snprintf(r->err, sizeof(r->err), "%s",
			         curl_easy_strerror(rc));
		return false;
	}
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &r->status);
	r->body = s.buf;
	r->len = s.len;
	return true;
}

void publish_reply_free(struct publish_reply *r)
{
	free(r->body);
	r->body = NULL;
}

void publish_reply_why(const struct publish_reply *r, char *out, size_t len)
{
	if (r->status == 0)
		snprintf(out, len, "%s", r->err);
	else
		snprintf(out, len, "HTTP %ld", r->status);
}

void publish_peer_fail(struct publish_peer *p, int64_t now_ns, const char *fmt,
                       ...)
{
	p->stats->failures++;
	publish_backoff_fail(&p->bo, now_ns, p->retry_max_ns);
	p->failing = true;
	unsigned held;
	if (!log_gate_take(&p->log, now_ns, PUBLISH_LOG_GAP_NS, &held))
		return;
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* the peer's text is not ours to print raw */
	for (char *c = msg; *c; c++)
		if ((unsigned char)*c < 0x20 || (unsigned char)*c == 0x7f)
			*c = '?';
	log_warn("%s: %s; retrying in %.1f s (%u more failures held back)",
	         p->what, msg, (double)p->bo.delay_ns * 1e-9, held);
}

void publish_peer_ok(struct publish_peer *p)
{
	if (p->failing)
		log_info("%s: answering again after %u failures", p->what,
		         p->bo.failures);
	p->failing = false;
	publish_backoff_ok(&p->bo);
}
