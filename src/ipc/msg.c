#include "ipc/msg.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipc/shm.h"

static bool refuse(struct ipc_msg_error *err, const char *code, const char *fmt,
                   ...) __attribute__((format(printf, 3, 4)));

static bool refuse(struct ipc_msg_error *err, const char *code, const char *fmt,
                   ...)
{
	err->code = code;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
	return false;
}

/* Names end up in terminal tables and Prometheus labels: no control
 * characters (jansson already guarantees valid UTF-8). */
static bool get_string(json_t *obj, const char *key, bool required, char *dst,
                       size_t cap, struct ipc_msg_error *err)
{
	json_t *v = json_object_get(obj, key);
	if (!v) {
		if (required)
			return refuse(err, BATON_ERR_INVALID,
			              "missing field \"%s\"", key);
		dst[0] = '\0';
		return true;
	}
	if (!json_is_string(v))
		return refuse(err, BATON_ERR_INVALID,
		              "field \"%s\" must be a string", key);
	const char *s = json_string_value(v);
	size_t n = json_string_length(v);
	if (n == 0 || n >= cap)
		return refuse(err, BATON_ERR_INVALID,
		              "field \"%s\" must be 1 to %zu bytes", key,
		              cap - 1);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c == 0x7f)
			return refuse(err, BATON_ERR_INVALID,
			              "field \"%s\" has a control character",
			              key);
	}
	memcpy(dst, s, n + 1);
	return true;
}

/* A rate: in [IPC_FPS_MIN, IPC_FPS_MAX], or 0 where zero_ok (proto.h:
 * "none", "the default"). */
static bool get_fps(json_t *obj, const char *key, bool zero_ok, bool *present,
                    double *dst, struct ipc_msg_error *err)
{
	json_t *v = json_object_get(obj, key);
	*present = v != NULL;
	*dst = 0.0;
	if (!v)
		return true;
	if (!json_is_number(v))
		return refuse(err, BATON_ERR_INVALID,
		              "field \"%s\" must be a number", key);
	double x = json_number_value(v);
	if (zero_ok && x == 0.0)
		return true;
	if (!isfinite(x) || x < IPC_FPS_MIN || x > IPC_FPS_MAX)
		return refuse(err, BATON_ERR_INVALID,
		              "field \"%s\" must lie in [%g, %g]%s (got %g)",
		              key, IPC_FPS_MIN, IPC_FPS_MAX,
		              zero_ok ? " or be 0" : "", isfinite(x) ? x : 0.0);
	*dst = x;
	return true;
}

/* A tenant name: a string as get_string checks it, minus the control
 * check, then cleaned (ipc_name_clean in msg.h says why replaced). */
static bool get_name(json_t *obj, bool required, char *dst, size_t cap,
                     struct ipc_msg_error *err)
{
	json_t *v = json_object_get(obj, "name");
	if (!v) {
		if (required)
			return refuse(err, BATON_ERR_INVALID,
			              "missing field \"name\"");
		dst[0] = '\0';
		return true;
	}
	if (!json_is_string(v))
		return refuse(err, BATON_ERR_INVALID,
		              "field \"name\" must be a string");
	size_t n = json_string_length(v);
	if (n == 0 || n >= cap)
		return refuse(err, BATON_ERR_INVALID,
		              "field \"name\" must be 1 to %zu bytes", cap - 1);
	/* jansson refuses \u0000 unless asked (JSON_ALLOW_NUL): no NUL
	 * inside, so the C string is the whole name. */
	memcpy(dst, json_string_value(v), n + 1);
	ipc_name_clean(dst);
	return true;
}

/* An integer field in [lo, hi]. */
static bool get_int(json_t *obj, const char *key, bool *present, long long *dst,
                    long long lo, long long hi, struct ipc_msg_error *err)
{
	json_t *v = json_object_get(obj, key);
	*present = v != NULL;
	*dst = 0;
	if (!v)
		return true;
	if (!json_is_integer(v))
		return refuse(err, BATON_ERR_INVALID,
		              "field \"%s\" must be an integer", key);
	long long x = json_integer_value(v);
	if (x < lo || x > hi)
		return refuse(err, BATON_ERR_INVALID,
		              "field \"%s\" must lie in [%lld, %lld]", key, lo,
		              hi);
	*dst = x;
	return true;
}

/* A GPU cap: a share of one GPU in (0, 1], or 0 ("none") where zero_ok.
 * NaN and infinities are refused (JSON has neither, but a number past
 * DBL_MAX parses as one). */
static bool get_cap(json_t *obj, bool zero_ok, bool *present, double *dst,
                    struct ipc_msg_error *err)
{
	json_t *v = json_object_get(obj, "cap");
	*present = v != NULL;
	*dst = 0.0;
	if (!v)
		return true;
	if (!json_is_number(v))
		return refuse(err, BATON_ERR_INVALID,
		              "field \"cap\" must be a number");
	double x = json_number_value(v);
	if (zero_ok && x == 0.0)
		return true;
	if (!isfinite(x) || !(x > 0.0) || x > 1.0)
		return refuse(err, BATON_ERR_INVALID,
		              "field \"cap\" must lie in (0, 1]%s: a share "
		              "of one GPU (got %g)",
		              zero_ok ? " or be 0" : "", isfinite(x) ? x : 0.0);
	*dst = x;
	return true;
}

/* A best-effort tenant's weight: (0, IPC_BE_WEIGHT_MAX]. */
static bool get_weight(json_t *obj, bool *present, double *dst,
                       struct ipc_msg_error *err)
{
	json_t *v = json_object_get(obj, "weight");
	*present = v != NULL;
	if (!v)
		return true;
	double x = json_is_number(v) ? json_number_value(v) : NAN;
	if (!isfinite(x) || !(x > 0.0) || x > IPC_BE_WEIGHT_MAX)
		return refuse(err, BATON_ERR_INVALID,
		              "field \"weight\" must be a number in (0, %g]",
		              IPC_BE_WEIGHT_MAX);
	*dst = x;
	return true;
}

/* A best-effort tenant's hello: a name, an optional weight and cap; no
 * pacing fields (it has no frames to pace). */
static bool parse_be_hello(json_t *obj, struct ipc_msg_hello *h,
                           struct ipc_msg_error *err)
{
	static const char *const paced[] = {"sla_fps", "fixed_fps"};
	for (size_t i = 0; i < 2; i++)
		if (json_object_get(obj, paced[i]))
			return refuse(err, BATON_ERR_INVALID,
			              "field \"%s\" does not apply to a "
			              "best-effort tenant (role \"be\")",
			              paced[i]);
	bool present;
	h->weight = 1.0;
	static const char *const flags[] = {"partition", "idle"};
	bool *dst[] = {&h->partition, &h->idle};
	for (size_t i = 0; i < 2; i++) {
		json_t *v = json_object_get(obj, flags[i]);
		if (v && !json_is_boolean(v))
			return refuse(err, BATON_ERR_INVALID,
			              "field \"%s\" must be true or false",
			              flags[i]);
		*dst[i] = v && json_is_true(v);
	}
	return get_name(obj, true, h->name, sizeof(h->name), err) &&
	       get_string(obj, "api", false, h->api, sizeof(h->api), err) &&
	       get_string(obj, "gpu", false, h->gpu, sizeof(h->gpu), err) &&
	       get_string(obj, "gpu_uuid", false, h->gpu_uuid,
	                  sizeof(h->gpu_uuid), err) &&
	       get_weight(obj, &present, &h->weight, err) &&
	       get_cap(obj, false, &present, &h->cap, err);
}

static bool parse_hello(json_t *obj, struct ipc_msg_hello *h,
                        struct ipc_msg_error *err)
{
	json_t *v = json_object_get(obj, "version");
	if (!v)
		return refuse(err, BATON_ERR_INVALID,
		              "missing field \"version\"");
	if (!json_is_integer(v))
		return refuse(err, BATON_ERR_INVALID,
		              "field \"version\" must be an integer");
	if (json_integer_value(v) != BATON_PROTO_VERSION)
		return refuse(err, BATON_ERR_VERSION,
		              "protocol version %lld, this daemon speaks %d",
		              (long long)json_integer_value(v),
		              BATON_PROTO_VERSION);
	h->version = BATON_PROTO_VERSION;

	char role[16];
	if (!get_string(obj, "role", true, role, sizeof(role), err))
		return false;
	if (strcmp(role, "tenant") == 0)
		h->role = IPC_ROLE_TENANT;
	else if (strcmp(role, "client") == 0)
		h->role = IPC_ROLE_CLIENT;
	else if (strcmp(role, "be") == 0)
		h->role = IPC_ROLE_BE;
	else
		return refuse(err, BATON_ERR_INVALID,
		              "role must be \"tenant\", \"be\" or "
		              "\"client\"");
	if (h->role == IPC_ROLE_CLIENT)
		return true;
	if (h->role == IPC_ROLE_BE)
		return parse_be_hello(obj, h, err);

	bool present;
	if (!get_name(obj, true, h->name, sizeof(h->name), err) ||
	    !get_string(obj, "api", false, h->api, sizeof(h->api), err) ||
	    !get_string(obj, "gpu", false, h->gpu, sizeof(h->gpu), err) ||
	    !get_string(obj, "gpu_uuid", false, h->gpu_uuid,
	                sizeof(h->gpu_uuid), err) ||
	    !get_fps(obj, "sla_fps", true, &present, &h->sla_fps, err) ||
	    !get_fps(obj, "fixed_fps", true, &present, &h->fixed_fps, err) ||
	    !get_cap(obj, true, &present, &h->cap, err))
		return false;
	return true;
}

static bool parse_set(json_t *obj, struct ipc_msg_set *s,
                      struct ipc_msg_error *err)
{
	long long id, uid, level;
	s->has_name = json_object_get(obj, "name") != NULL;
	/* An SLA of 0 means "the default" only at registration; set it to a
	 * real criterion. A pin of 0 hands the tenant back to the policy. */
	if (!get_name(obj, false, s->name, sizeof(s->name), err) ||
	    !get_int(obj, "id", &s->has_id, &id, 1, LLONG_MAX, err) ||
	    !get_int(obj, "uid", &s->has_uid, &uid, 0, UINT32_MAX - 1LL, err) ||
	    !get_fps(obj, "sla_fps", false, &s->has_sla, &s->sla_fps, err) ||
	    !get_fps(obj, "fixed_fps", true, &s->has_fixed, &s->fixed_fps,
	             err) ||
	    !get_cap(obj, true, &s->has_cap, &s->cap, err) ||
	    !get_weight(obj, &s->has_weight, &s->weight, err) ||
	    !get_int(obj, "level", &s->has_level, &level, -1,
	             (long long)BATON_QUALITY_LEVELS_MAX - 1, err))
		return false;
	s->level = (int)level;
	json_t *wc = json_object_get(obj, "work_conserving");
	if (wc && !json_is_boolean(wc))
		return refuse(
		    err, BATON_ERR_INVALID,
		    "field \"work_conserving\" must be true or false");
	s->has_wc = wc != NULL;
	s->work_conserving = wc && json_is_true(wc);
	s->id = (unsigned long long)id;
	s->uid = (unsigned long)uid;
	json_t *all = json_object_get(obj, "all");
	if (all && !json_is_boolean(all))
		return refuse(err, BATON_ERR_INVALID,
		              "field \"all\" must be true or false");
	s->all = all && json_is_true(all);
	if (s->all && !s->has_name)
		return refuse(err, BATON_ERR_INVALID,
		              "\"all\" goes with a \"name\"");
	if (!s->has_sla && !s->has_fixed && !s->has_cap && !s->has_wc &&
	    !s->has_weight && !s->has_level)
		return refuse(err, BATON_ERR_INVALID,
		              "set needs \"sla_fps\", \"fixed_fps\", \"cap\", "
		              "\"work_conserving\", \"weight\" or \"level\"");
	return true;
}

/* An optional need of a capacity question: a number in (0, max]; 0 when
 * absent. */
static bool get_need(json_t *obj, const char *key, double max, double *out,
                     struct ipc_msg_error *err)
{
	json_t *v = json_object_get(obj, key);
	*out = 0.0;
	if (!v)
		return true;
	double x = json_is_number(v) ? json_number_value(v) : NAN;
	if (!isfinite(x) || !(x > 0.0) || x > max)
		return refuse(err, BATON_ERR_INVALID,
		              "field \"%s\" must be a number in (0, %.10g]",
		              key, max);
	*out = x;
	return true;
}

/* A session's profile, or its cost and SLA, as capacity and place take
 * them (what names the message in the errors): at most one of the two;
 * *has_cost when both cost_ms and sla_fps came, an error when one came
 * alone. */
static bool parse_session(json_t *obj, const char *what, bool *has_profile,
                          char *profile, size_t profile_cap, bool *has_cost,
                          double *cost_ms, double *sla_fps,
                          struct ipc_msg_error *err)
{
	*has_profile = json_object_get(obj, "profile") != NULL;
	bool cost, sla;
	if (*has_profile &&
	    !get_string(obj, "profile", true, profile, profile_cap, err))
		return false;
	if (!get_fps(obj, "sla_fps", false, &sla, sla_fps, err))
		return false;
	json_t *v = json_object_get(obj, "cost_ms");
	cost = v != NULL;
	if (v) {
		double x = json_is_number(v) ? json_number_value(v) : NAN;
		if (!isfinite(x) || !(x > 0.0) || x > IPC_COST_MS_MAX)
			return refuse(err, BATON_ERR_INVALID,
			              "field \"cost_ms\" must be a number in "
			              "(0, %g]",
			              IPC_COST_MS_MAX);
		*cost_ms = x;
	}
	if (*has_profile && (cost || sla))
		return refuse(err, BATON_ERR_INVALID,
		              "%s takes \"profile\" or \"cost_ms\" "
		              "and \"sla_fps\", not both",
		              what);
	if (cost != sla)
		return refuse(err, BATON_ERR_INVALID,
		              "%s needs \"cost_ms\" and \"sla_fps\" together",
		              what);
	*has_cost = cost && sla;
	return true;
}

static bool parse_capacity(json_t *obj, struct ipc_msg_capacity *c,
                           struct ipc_msg_error *err)
{
	bool has_cost;
	if (!parse_session(obj, "capacity", &c->has_profile, c->profile,
	                   sizeof(c->profile), &has_cost, &c->cost_ms,
	                   &c->sla_fps, err))
		return false;
	if (!c->has_profile && !has_cost)
		return refuse(err, BATON_ERR_INVALID,
		              "capacity needs \"profile\", or \"cost_ms\" "
		              "and \"sla_fps\"");
	return get_need(obj, "encoder", 1.0, &c->encoder, err) &&
	       get_need(obj, "vram_mb", IPC_VRAM_MB_MAX, &c->vram_mb, err);
}

static bool parse_place(json_t *obj, struct ipc_msg_place *p,
                        struct ipc_msg_error *err)
{
	return parse_session(obj, "place", &p->has_profile, p->profile,
	                     sizeof(p->profile), &p->has_cost, &p->cost_ms,
	                     &p->sla_fps, err);
}

bool ipc_msg_parse(const char *line, size_t len, struct ipc_msg *out,
                   struct ipc_msg_error *err)
{
	memset(out, 0, sizeof(*out));
	err->code = NULL;
	err->message[0] = '\0';
	if (len >= BATON_MSG_MAX)
		return refuse(err, BATON_ERR_PROTOCOL,
		              "message longer than %d bytes", BATON_MSG_MAX);
	json_error_t jerr;
	json_t *obj = json_loadb(line, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!obj) {
		/* jansson quotes the input near the error: escaped, it is
		 * safe for the reply and the log */
		char text[sizeof(jerr.text) * 2];
		return refuse(err, BATON_ERR_PROTOCOL, "invalid JSON: %s",
		              ipc_escape(text, sizeof(text), jerr.text));
	}
	bool ok = false;
	if (!json_is_object(obj)) {
		refuse(err, BATON_ERR_PROTOCOL, "message is not an object");
		goto out;
	}
	json_t *type = json_object_get(obj, "type");
	if (!json_is_string(type)) {
		refuse(err, BATON_ERR_PROTOCOL,
		       "message has no string \"type\"");
		goto out;
	}
	const char *t = json_string_value(type);
	if (strcmp(t, "hello") == 0) {
		out->type = IPC_MSG_HELLO;
		ok = parse_hello(obj, &out->hello, err);
	} else if (strcmp(t, "set") == 0) {
		out->type = IPC_MSG_SET;
		ok = parse_set(obj, &out->set, err);
	} else if (strcmp(t, "policy") == 0) {
		out->type = IPC_MSG_POLICY;
		ok = get_string(obj, "name", true, out->policy.name,
		                sizeof(out->policy.name), err);
	} else if (strcmp(t, "status") == 0) {
		out->type = IPC_MSG_STATUS;
		ok = true;
	} else if (strcmp(t, "capacity") == 0) {
		out->type = IPC_MSG_CAPACITY;
		ok = parse_capacity(obj, &out->capacity, err);
	} else if (strcmp(t, "gpus") == 0) {
		out->type = IPC_MSG_GPUS;
		ok = true;
	} else if (strcmp(t, "place") == 0) {
		out->type = IPC_MSG_PLACE;
		ok = parse_place(obj, &out->place, err);
	} else {
		/* Not echoed: a hostile type could be anything. */
		refuse(err, BATON_ERR_PROTOCOL, "unknown message type");
	}
out:
	json_decref(obj);
	return ok;
}

char *ipc_msg_encode(json_t *obj)
{
	if (!obj)
		return NULL;
	char *s = json_dumps(obj, JSON_COMPACT);
	json_decref(obj);
	if (!s)
		return NULL;
	size_t n = strlen(s);
	char *line = realloc(s, n + 2);
	if (!line) {
		free(s);
		return NULL;
	}
	line[n] = '\n';
	line[n + 1] = '\0';
	return line;
}

char *ipc_msg_welcome(long long id)
{
	json_t *o = json_pack("{s:s, s:i}", "type", "welcome", "version",
	                      BATON_PROTO_VERSION);
	if (o && id >= 0)
		json_object_set_new(o, "id", json_integer(id));
	return ipc_msg_encode(o);
}

char *ipc_msg_ok(void)
{
	return ipc_msg_encode(json_pack("{s:s}", "type", "ok"));
}

char *ipc_msg_error_line(const char *code, const char *message)
{
	return ipc_msg_encode(json_pack("{s:s, s:s, s:s}", "type", "error",
	                                "code", code, "message",
	                                message ? message : ""));
}

char *ipc_msg_hello_client(void)
{
	return ipc_msg_encode(json_pack("{s:s, s:i, s:s}", "type", "hello",
	                                "version", BATON_PROTO_VERSION, "role",
	                                "client"));
}

/* The length of the UTF-8 sequence at s (valid UTF-8) and its code point. */
static size_t utf8_next(const unsigned char *s, uint32_t *cp)
{
	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if ((s[0] & 0xe0) == 0xc0 && s[1]) {
		*cp = ((uint32_t)(s[0] & 0x1f) << 6) | (s[1] & 0x3f);
		return 2;
	}
	if ((s[0] & 0xf0) == 0xe0 && s[1] && s[2]) {
		*cp = ((uint32_t)(s[0] & 0x0f) << 12) |
		      ((uint32_t)(s[1] & 0x3f) << 6) | (s[2] & 0x3f);
		return 3;
	}
	if ((s[0] & 0xf8) == 0xf0 && s[1] && s[2] && s[3]) {
		*cp = ((uint32_t)(s[0] & 0x07) << 18) |
		      ((uint32_t)(s[1] & 0x3f) << 12) |
		      ((uint32_t)(s[2] & 0x3f) << 6) | (s[3] & 0x3f);
		return 4;
	}
	*cp = 0xfffd; /* not UTF-8: one byte, replaced */
	return 1;
}

static bool unsafe_code_point(uint32_t c)
{
	return c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0x061c ||
	       (c >= 0x200b && c <= 0x200f) || (c >= 0x2028 && c <= 0x202e) ||
	       (c >= 0x2060 && c <= 0x2069) || c == 0xfeff || c == 0xfffd;
}

size_t ipc_name_clean(char *s)
{
	size_t r = 0, w = 0, replaced = 0;
	while (s[r]) {
		uint32_t cp;
		size_t len = utf8_next((const unsigned char *)s + r, &cp);
		if (unsafe_code_point(cp)) {
			s[w++] = '?';
			replaced++;
		} else {
			memmove(s + w, s + r, len);
			w += len;
		}
		r += len;
	}
	s[w] = '\0';
	return replaced;
}

char *ipc_escape(char *dst, size_t cap, const char *src)
{
	static const char hex[] = "0123456789abcdef";
	if (cap < 4) {
		if (cap)
			dst[0] = '\0';
		return dst;
	}
	size_t w = 0;
	for (const unsigned char *p = (const unsigned char *)src; *p; p++) {
		bool plain = *p >= 0x20 && *p < 0x7f && *p != '\\';
		size_t need = plain ? 1 : 4;
		if (w + need + 4 > cap) { /* room for "..." and the NUL */
			memcpy(dst + w, "...", 3);
			w += 3;
			break;
		}
		if (plain) {
			dst[w++] = (char)*p;
		} else {
			dst[w++] = '\\';
			dst[w++] = 'x';
			dst[w++] = hex[*p >> 4];
			dst[w++] = hex[*p & 15];
		}
	}
	dst[w] = '\0';
	return dst;
}
