/* Bodies and answers of the publisher (publish_body.h). */
#include "daemon/publish/publish_body.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

static char *dump(json_t *o)
{
	if (!o)
		return NULL;
	char *s = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	return s;
}

char *publish_agones_counter_body(int64_t count, int64_t capacity)
{
	char c[24], k[24];
	snprintf(c, sizeof(c), "%" PRId64, count);
	snprintf(k, sizeof(k), "%" PRId64, capacity);
	return dump(json_pack("{s:s, s:s}", "count", c, "capacity", k));
}

static json_t *load(const char *body, size_t len)
{
	if (!body || len > PUBLISH_BODY_MAX)
		return NULL;
	json_t *o = json_loadb(body, len, JSON_REJECT_DUPLICATES, NULL);
	if (o && !json_is_object(o)) {
		json_decref(o);
		return NULL;
	}
	return o;
}

bool publish_agones_empty_ok(const char *body, size_t len)
{
	json_t *o = load(body, len);
	json_decref(o);
	return o != NULL;
}

/* A plain decimal int64 with no sign, spaces or leading junk. */
static bool decimal(const char *s, int64_t *out)
{
	if (!s || !*s || strlen(s) > 19)
		return false;
	for (const char *p = s; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	errno = 0;
	char *end;
	long long v = strtoll(s, &end, 10);
	if (errno || *end)
		return false;
	*out = v;
	return true;
}

/* proto3 JSON: an int64 is a string, but integers are accepted too. */
static bool int64_member(json_t *o, const char *key, int64_t *out)
{
	json_t *v = json_object_get(o, key);
	if (json_is_string(v))
		return decimal(json_string_value(v), out);
	if (json_is_integer(v) && json_integer_value(v) >= 0) {
		*out = json_integer_value(v);
		return true;
	}
	/* proto3 leaves zero values out */
	if (!v) {
		*out = 0;
		return true;
	}
	return false;
}

bool publish_agones_counter_parse(const char *body, size_t len,
                                  const char *name, int64_t *count,
                                  int64_t *capacity)
{
	json_t *o = load(body, len);
	if (!o)
		return false;
	json_t *n = json_object_get(o, "name");
	bool ok = json_is_string(n) &&
	          strcmp(json_string_value(n), name) == 0 &&
	          int64_member(o, "count", count) &&
	          int64_member(o, "capacity", capacity);
	json_decref(o);
	return ok;
}

/* RFC 6901: "~" is "~0", "/" is "~1". */
static bool pointer(const char *prefix, const char *name, char *out, size_t len)
{
	size_t n = (size_t)snprintf(out, len, "%s", prefix);
	for (const char *p = name; *p && n + 3 < len; p++) {
		if (*p == '~' || *p == '/') {
			out[n++] = '~';
			out[n++] = *p == '~' ? '0' : '1';
		} else {
			out[n++] = *p;
		}
	}
	out[n] = '\0';
	return n + 3 < len;
}

char *publish_k8s_patch_body(const char *resource, int64_t n)
{
	char cap[320], alloc[320], v[24];
	if (!pointer("/status/capacity/", resource, cap, sizeof(cap)) ||
	    !pointer("/status/allocatable/", resource, alloc, sizeof(alloc)))
		return NULL;
	snprintf(v, sizeof(v), "%" PRId64, n);
	return dump(json_pack("[{s:s, s:s, s:s}, {s:s, s:s, s:s}]", "op", "add",
	                      "path", cap, "value", v, "op", "add", "path",
	                      alloc, "value", v));
}

bool publish_k8s_node_parse(const char *body, size_t len, const char *resource,
                            int64_t *n)
{
	json_t *o = load(body, len);
	if (!o)
		return false;
	json_t *kind = json_object_get(o, "kind");
	json_t *cap = json_object_get(json_object_get(o, "status"), "capacity");
	json_t *v = json_object_get(cap, resource);
	bool ok = json_is_string(kind) &&
	          strcmp(json_string_value(kind), "Node") == 0 &&
	          json_is_string(v) && decimal(json_string_value(v), n);
	json_decref(o);
	return ok;
}

bool publish_k8s_path(const char *node, char *out, size_t len)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = (size_t)snprintf(out, len, "/api/v1/nodes/");
	for (const unsigned char *p = (const unsigned char *)node; *p; p++) {
		if (n + 4 >= len)
			return false;
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || *p == '-' || *p == '.' ||
		    *p == '_') {
			out[n++] = (char)*p;
		} else {
			out[n++] = '%';
			out[n++] = hex[*p >> 4];
			out[n++] = hex[*p & 15];
		}
	}
	/* fieldManager as kubectl names itself (kubectl-patch) */
	return snprintf(out + n, len - n, "/status?fieldManager=batond") <
	       (int)(len - n);
}
