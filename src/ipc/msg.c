#include "ipc/msg.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static bool get_fps(json_t *obj, const char *key, bool *present, double *dst,
                    struct ipc_msg_error *err)
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
	if (!isfinite(x) || x < 0.0 || x > IPC_FPS_MAX)
		return refuse(err, BATON_ERR_INVALID,
		              "field \"%s\" must lie in [0, %g]", key,
		              IPC_FPS_MAX);
	*dst = x;
	return true;
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
	else
		return refuse(err, BATON_ERR_INVALID,
		              "role must be \"tenant\" or \"client\"");
	if (h->role == IPC_ROLE_CLIENT)
		return true;

	bool present;
	if (!get_string(obj, "name", true, h->name, sizeof(h->name), err) ||
	    !get_string(obj, "api", false, h->api, sizeof(h->api), err) ||
	    !get_fps(obj, "sla_fps", &present, &h->sla_fps, err) ||
	    !get_fps(obj, "fixed_fps", &present, &h->fixed_fps, err))
		return false;
	return true;
}

static bool parse_set(json_t *obj, struct ipc_msg_set *s,
                      struct ipc_msg_error *err)
{
	s->has_name = json_object_get(obj, "name") != NULL;
	if (!get_string(obj, "name", false, s->name, sizeof(s->name), err) ||
	    !get_fps(obj, "sla_fps", &s->has_sla, &s->sla_fps, err) ||
	    !get_fps(obj, "fixed_fps", &s->has_fixed, &s->fixed_fps, err))
		return false;
	if (!s->has_sla && !s->has_fixed)
		return refuse(err, BATON_ERR_INVALID,
		              "set needs \"sla_fps\" or \"fixed_fps\"");
	/* An SLA of 0 means "the default" only at registration; set it to a
	 * real criterion. */
	if (s->has_sla && !(s->sla_fps > 0.0))
		return refuse(err, BATON_ERR_INVALID,
		              "\"sla_fps\" must be above 0");
	return true;
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
	if (!obj)
		return refuse(err, BATON_ERR_PROTOCOL, "invalid JSON: %s",
		              jerr.text);
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
