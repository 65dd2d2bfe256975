/* batond's `agones` and `kubernetes` groups (config_publish.h). */
#include "daemon/config/config_publish.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

void daemon_publish_defaults(struct daemon_publish_config *p)
{
	*p = (struct daemon_publish_config){
	    .retry_max_ms = PUBLISH_DEFAULT_RETRY_MAX_MS,
	};
	snprintf(p->agones.counter, sizeof(p->agones.counter), "%s",
	         PUBLISH_DEFAULT_COUNTER);
	p->agones.health_ms = 2000;
	snprintf(p->k8s.resource, sizeof(p->k8s.resource), "%s",
	         PUBLISH_DEFAULT_RESOURCE);
	snprintf(p->k8s.token_file, sizeof(p->k8s.token_file), "%s/token",
	         PUBLISH_SA_DIR);
	snprintf(p->k8s.ca_file, sizeof(p->k8s.ca_file), "%s/ca.crt",
	         PUBLISH_SA_DIR);
	p->k8s.refresh_ms = 60000;
}

static bool name_char(char c)
{
	return isalnum((unsigned char)c) || c == '-' || c == '_' || c == '.';
}

bool daemon_publish_resource_ok(const char *name)
{
	const char *slash = strchr(name, '/');
	if (!slash || slash == name || strchr(slash + 1, '/'))
		return false;
	size_t dl = (size_t)(slash - name), nl = strlen(slash + 1);
	if (dl > 253 || nl == 0 || nl > 63)
		return false;
	for (size_t i = 0; i < dl; i++)
		if (!(islower((unsigned char)name[i]) ||
		      isdigit((unsigned char)name[i]) || name[i] == '-' ||
		      name[i] == '.'))
			return false;
	if (!isalnum((unsigned char)name[0]) ||
	    !isalnum((unsigned char)name[dl - 1]))
		return false;
	/* kubernetes.io and its subdomains are Kubernetes' own */
	const char *k = "kubernetes.io";
	size_t kl = strlen(k);
	if (dl >= kl && memcmp(slash - kl, k, kl) == 0 &&
	    (dl == kl || slash[-(long)kl - 1] == '.'))
		return false;
	const char *n = slash + 1;
	for (size_t i = 0; i < nl; i++)
		if (!name_char(n[i]))
			return false;
	return isalnum((unsigned char)n[0]) &&
	       isalnum((unsigned char)n[nl - 1]);
}

static bool str_key(const config_setting_t *s, char *out, size_t len,
                    bool empty_ok)
{
	const char *v = config_setting_get_string(s);
	if (!v || strlen(v) >= len || (!empty_ok && !*v))
		return false;
	snprintf(out, len, "%s", v);
	return true;
}

static bool int_key(const config_setting_t *s, long long lo, long long hi,
                    long long *out)
{
	int t = config_setting_type(s);
	if (t != CONFIG_TYPE_INT && t != CONFIG_TYPE_INT64)
		return false;
	long long v = config_setting_get_int64(s);
	if (v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

/* A counter name Agones takes in a URL path as it is. */
static bool counter_ok(const char *c)
{
	if (!*c)
		return false;
	for (; *c; c++)
		if (!name_char(*c))
			return false;
	return true;
}

static bool agones_key(struct daemon_publish_config *p, const char *key,
                       const config_setting_t *s, char *why, size_t wl)
{
	struct daemon_agones_config *a = &p->agones;
	long long v;
	if (strcmp(key, "port") == 0) {
		if (!int_key(s, 1, 65535, &v))
			return snprintf(why, wl,
			                "must be a port in [1, 65535]"),
			       false;
		a->port = (unsigned)v;
	} else if (strcmp(key, "counter") == 0) {
		if (!str_key(s, a->counter, sizeof(a->counter), false) ||
		    !counter_ok(a->counter))
			return snprintf(why, wl,
			                "must be 1 to 63 of [A-Za-z0-9._-]"),
			       false;
	} else if (strcmp(key, "health_ms") == 0) {
		if (!int_key(s, 100, 60000, &v))
			return snprintf(why, wl,
			                "must be an integer in [100, 60000]"),
			       false;
		a->health_ms = (int)v;
	} else {
		return snprintf(why, wl,
		                "unknown setting (enabled, port, counter, "
		                "profile, health_ms, retry_max_ms)"),
		       false;
	}
	return true;
}

static bool k8s_key(struct daemon_publish_config *p, const char *key,
                    const config_setting_t *s, char *why, size_t wl)
{
	struct daemon_k8s_config *k = &p->k8s;
	long long v;
	if (strcmp(key, "resource") == 0) {
		if (!str_key(s, k->resource, sizeof(k->resource), false) ||
		    !daemon_publish_resource_ok(k->resource))
			return snprintf(why, wl,
			                "must be an extended resource name, "
			                "DOMAIN/NAME (e.g. \"%s\")",
			                PUBLISH_DEFAULT_RESOURCE),
			       false;
	} else if (strcmp(key, "node_name") == 0) {
		if (!str_key(s, k->node_name, sizeof(k->node_name), false) ||
		    strpbrk(k->node_name, "/?#%"))
			return snprintf(why, wl, "must be a node name"), false;
	} else if (strcmp(key, "api") == 0) {
		if (!str_key(s, k->api, sizeof(k->api), false) ||
		    strncmp(k->api, "https://", 8) != 0 ||
		    strpbrk(k->api, "?#"))
			return snprintf(why, wl,
			                "must be an https:// URL, no query"),
			       false;
	} else if (strcmp(key, "token_file") == 0 ||
	           strcmp(key, "ca_file") == 0) {
		bool tok = key[0] == 't';
		char *dst = tok ? k->token_file : k->ca_file;
		if (!str_key(s, dst, sizeof(k->token_file), false) ||
		    dst[0] != '/')
			return snprintf(why, wl,
			                "must be an absolute path under 256 "
			                "bytes"),
			       false;
	} else if (strcmp(key, "refresh_ms") == 0) {
		if (!int_key(s, 1000, 3600000, &v))
			return snprintf(
			           why, wl,
			           "must be an integer in [1000, 3600000]"),
			       false;
		k->refresh_ms = (int)v;
	} else {
		return snprintf(
		           why, wl,
		           "unknown setting (enabled, resource, node_name, "
		           "api, token_file, ca_file, profile, refresh_ms, "
		           "retry_max_ms)"),
		       false;
	}
	return true;
}

bool daemon_publish_group(struct daemon_publish_config *p,
                          const config_setting_t *group, bool k8s, char *why,
                          size_t whylen, const config_setting_t **bad)
{
	*bad = group;
	if (!config_setting_is_group(group))
		return snprintf(why, whylen, "must be a group { ... }"), false;
	for (int i = 0; i < config_setting_length(group); i++) {
		const config_setting_t *s = config_setting_get_elem(group, i);
		const char *key = config_setting_name(s);
		*bad = s;
		long long v;
		bool ok = true;
		if (strcmp(key, "enabled") == 0) {
			if (config_setting_type(s) != CONFIG_TYPE_BOOL)
				return snprintf(why, whylen,
				                "must be true or false"),
				       false;
			*(k8s ? &p->k8s.enabled : &p->agones.enabled) =
			    config_setting_get_bool(s);
		} else if (strcmp(key, "profile") == 0) {
			char *dst = k8s ? p->k8s.profile : p->agones.profile;
			if (!str_key(s, dst, IPC_NAME_MAX, false))
				return snprintf(why, whylen,
				                "must be an app name"),
				       false;
		} else if (strcmp(key, "retry_max_ms") == 0) {
			if (!int_key(s, 500, 600000, &v))
				return snprintf(why, whylen,
				                "must be an integer in [500, "
				                "600000]"),
				       false;
			p->retry_max_ms = (int)v;
		} else {
			ok = k8s ? k8s_key(p, key, s, why, whylen)
			         : agones_key(p, key, s, why, whylen);
		}
		if (!ok)
			return false;
	}
	return true;
}
