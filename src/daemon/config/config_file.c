/* batond's --config file (config.h): libconfig's syntax, every key
 * checked, an error naming the file, the line, the key and the value. */
#include <errno.h>
#include <libconfig.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "daemon/config/config.h"
#include "daemon/config/config_gpus.h"
#include "daemon/config/config_params.h"
#include "ipc/msg.h"
#include "util/log.h"

struct file_ctx {
	const char *path;
	char *err;
	size_t errlen;
};

static bool file_error(struct file_ctx *f, const config_setting_t *s,
                       const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static bool file_error(struct file_ctx *f, const config_setting_t *s,
                       const char *fmt, ...)
{
	int n = snprintf(f->err, f->errlen, "%s:%d: %s: ", f->path,
	                 config_setting_source_line(s),
	                 config_setting_name(s) ? config_setting_name(s)
	                                        : "(setting)");
	if (n < 0 || (size_t)n >= f->errlen)
		return false;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(f->err + n, f->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return false;
}

static bool number(const config_setting_t *s, double *out)
{
	switch (config_setting_type(s)) {
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64:
		*out = (double)config_setting_get_int64(s);
		return true;
	case CONFIG_TYPE_FLOAT:
		*out = config_setting_get_float(s);
		return true;
	default:
		return false;
	}
}

/* params = { kp = 0.2; ... }; or harvest = { margin_ms = 1; ... };: the
 * parameter table's keys of group (config_params.h). */
static bool file_param_group(struct file_ctx *f, enum core_param_group group,
                             void *params, const config_setting_t *g)
{
	if (!config_setting_is_group(g))
		return file_error(f, g, "must be a group { ... }");
	for (int i = 0; i < config_setting_length(g); i++) {
		const config_setting_t *s = config_setting_get_elem(g, i);
		const struct core_param *renamed;
		char why[512];
		if (!daemon_config_param(group, params, s, why, sizeof(why),
		                         &renamed))
			return file_error(f, s, "%s", why);
		if (renamed)
			log_warn("%s:%d: %s.%s is deprecated: use %s", f->path,
			         config_setting_source_line(s),
			         config_setting_name(g), config_setting_name(s),
			         renamed->key);
	}
	return true;
}

/* The integer limits: connections per uid in [1, 100000], the hello's
 * timeout in [10, 600000] ms, a placement's hold in [0, 600000] ms. */
static int *limit_field(struct daemon_config *cfg, const char *name,
                        long long *lo, long long *hi)
{
	*hi = name[0] == 'm' ? 100000 : 600000;
	*lo = name[0] == 'm' ? 1 : name[0] == 'h' ? 10 : 0;
	return strcmp(name, "max_conns_per_uid") == 0  ? &cfg->max_conns_per_uid
	       : strcmp(name, "hello_timeout_ms") == 0 ? &cfg->hello_timeout_ms
	       : strcmp(name, "place_hold_ms") == 0    ? &cfg->place_hold_ms
	                                               : NULL;
}

static bool file_limit(struct file_ctx *f, struct daemon_config *cfg,
                       const config_setting_t *s)
{
	long long lo, hi;
	int *field = limit_field(cfg, config_setting_name(s), &lo, &hi);
	int t = config_setting_type(s);
	long long v = config_setting_get_int64(s);
	if ((t != CONFIG_TYPE_INT && t != CONFIG_TYPE_INT64) || v < lo ||
	    v > hi)
		return file_error(f, s, "must be an integer in [%lld, %lld]",
		                  lo, hi);
	*field = (int)v;
	return true;
}

/* A number member of an entry, in (lo, hi] (lo_open) or [lo, hi]. */
static bool entry_number(struct file_ctx *f, const config_setting_t *e,
                         const char *what, const config_setting_t *m, double lo,
                         double hi, bool lo_open, double *out)
{
	double v;
	if (!number(m, &v) || !isfinite(v) || v > hi || v < lo ||
	    (lo_open && v == lo))
		return file_error(
		    f, e, "%s: %s must be a number in %s%.10g, %.10g]", what,
		    config_setting_name(m), lo_open ? "(" : "[", lo, hi);
	*out = v;
	return true;
}

/* One member m of an apps entry (named what) into a. */
static bool app_member(struct file_ctx *f, const config_setting_t *list,
                       const char *what, const config_setting_t *m,
                       struct daemon_app *a)
{
	const char *key = config_setting_name(m);
	if (strcmp(key, "name") == 0)
		return true;
	if (strcmp(key, "cap") == 0)
		return entry_number(f, list, what, m, 0.0, 1.0, true, &a->cap);
	if (strcmp(key, "cost_ms") == 0)
		return entry_number(f, list, what, m, 0.0, IPC_COST_MS_MAX,
		                    true, &a->cost_ms);
	if (strcmp(key, "sla") == 0)
		return entry_number(f, list, what, m, IPC_FPS_MIN, IPC_FPS_MAX,
		                    false, &a->sla_fps);
	if (strcmp(key, "encoder") == 0)
		return entry_number(f, list, what, m, 0.0, 1.0, true,
		                    &a->encoder);
	if (strcmp(key, "vram_mb") == 0)
		return entry_number(f, list, what, m, 0.0, IPC_VRAM_MB_MAX,
		                    true, &a->vram_mb);
	if (strcmp(key, "work_conserving") == 0) {
		if (config_setting_type(m) != CONFIG_TYPE_BOOL)
			return file_error(f, list,
			                  "%s: work_conserving must be true or "
			                  "false",
			                  what);
		a->has_wc = true;
		a->work_conserving = config_setting_get_bool(m);
		return true;
	}
	return file_error(f, list,
	                  "%s: unknown key %s (name, cap, work_conserving, "
	                  "cost_ms, sla, encoder, vram_mb)",
	                  what, key);
}

/* apps = ( { name = "glmark2"; cap = 0.25; work_conserving = false;
 *            cost_ms = 8; sla = 30; }, ... ); */
static bool file_apps(struct file_ctx *f, struct daemon_config *cfg,
                      const config_setting_t *list)
{
	if (!config_setting_is_list(list))
		return file_error(f, list, "must be a list ( { ... }, ... )");
	int n = config_setting_length(list);
	if (n > DAEMON_MAX_APPS)
		return file_error(f, list, "at most %d entries",
		                  DAEMON_MAX_APPS);
	cfg->n_apps = 0;
	for (int i = 0; i < n; i++) {
		const config_setting_t *e = config_setting_get_elem(list, i);
		struct daemon_app a = {0};
		char what[96];
		snprintf(what, sizeof(what), "entry %d", i + 1);
		if (!config_setting_is_group(e))
			return file_error(f, list, "%s must be a group { ... }",
			                  what);
		const char *name = NULL;
		if (!config_setting_lookup_string(e, "name", &name) ||
		    !name[0] || strlen(name) >= sizeof(a.name))
			return file_error(f, list,
			                  "%s needs name = \"...\" (1 to %zu "
			                  "bytes)",
			                  what, sizeof(a.name) - 1);
		snprintf(a.name, sizeof(a.name), "%s", name);
		snprintf(what, sizeof(what), "entry \"%s\"", name);
		for (size_t k = 0; k < cfg->n_apps; k++)
			if (strcmp(cfg->apps[k].name, a.name) == 0)
				return file_error(f, list, "%s given twice",
				                  what);
		for (int j = 0; j < config_setting_length(e); j++)
			if (!app_member(f, list, what,
			                config_setting_get_elem(e, j), &a))
				return false;
		if (a.cost_ms > 0.0 && !(a.sla_fps > 0.0))
			return file_error(f, list,
			                  "%s: cost_ms goes with sla (its "
			                  "profile is cost x SLA)",
			                  what);
		cfg->apps[cfg->n_apps++] = a;
	}
	return true;
}

/* user_caps = ( { uid = 1000; cap = 0.5; }, ... ); */
static bool file_user_caps(struct file_ctx *f, struct daemon_config *cfg,
                           const config_setting_t *list)
{
	if (!config_setting_is_list(list))
		return file_error(f, list, "must be a list ( { ... }, ... )");
	int n = config_setting_length(list);
	if (n > DAEMON_MAX_USER_CAPS)
		return file_error(f, list, "at most %d entries",
		                  DAEMON_MAX_USER_CAPS);
	cfg->n_user_caps = 0;
	for (int i = 0; i < n; i++) {
		const config_setting_t *e = config_setting_get_elem(list, i);
		if (!config_setting_is_group(e))
			return file_error(
			    f, list, "entry %d must be a group { ... }", i + 1);
		const config_setting_t *u = config_setting_get_member(e, "uid");
		const config_setting_t *c = config_setting_get_member(e, "cap");
		int t = u ? config_setting_type(u) : CONFIG_TYPE_NONE;
		long long uid = u ? config_setting_get_int64(u) : -1;
		if ((t != CONFIG_TYPE_INT && t != CONFIG_TYPE_INT64) ||
		    uid < 0 || uid >= (long long)UINT32_MAX)
			return file_error(f, list,
			                  "entry %d needs uid = N (an integer "
			                  "in [0, %u])",
			                  i + 1, UINT32_MAX - 1);
		char what[64];
		snprintf(what, sizeof(what), "entry %d (uid %lld)", i + 1, uid);
		if (config_setting_length(e) != 2 || !c)
			return file_error(f, list,
			                  "%s takes exactly uid and cap", what);
		struct core_owner_cap oc = {.owner = (uint64_t)uid};
		if (!entry_number(f, list, what, c, 0.0, 1.0, true, &oc.cap))
			return false;
		for (size_t k = 0; k < cfg->n_user_caps; k++)
			if (cfg->user_caps[k].owner == oc.owner)
				return file_error(f, list, "%s given twice",
				                  what);
		cfg->user_caps[cfg->n_user_caps++] = oc;
	}
	return true;
}

const struct daemon_app *daemon_config_app(const struct daemon_config *cfg,
                                           const char *name)
{
	for (size_t i = 0; i < cfg->n_apps; i++)
		if (strcmp(cfg->apps[i].name, name) == 0)
			return &cfg->apps[i];
	return NULL;
}

/* The settings whose string a validator of config.h takes, and what its
 * error says (a %zu in it stands for size). */
static const struct {
	const char *key;
	bool (*set)(struct daemon_config *cfg, const char *value);
	const char *why;
	size_t size;
} text_keys[] = {
    {"socket", daemon_config_set_socket,
     "must be a socket path of 1 to %zu bytes",
     DAEMON_CONFIG_FIELD_SIZE(socket_path) - 1},
    {"policy", daemon_config_set_policy,
     "must be \"sa\", \"fsa\", \"esa\" or \"none\"", 0},
    {"quality", daemon_config_set_quality,
     "must be \"off\", \"baton\" or \"paper\"", 0},
    {"models", daemon_config_set_models,
     "must be an absolute directory path under %zu bytes",
     DAEMON_CONFIG_FIELD_SIZE(models_dir)},
    {"metrics", daemon_config_metrics, "must be \"HOST:PORT\" or \"off\"", 0},
    {"record", daemon_config_set_record,
     "must be a file path of 1 to %zu bytes or \"off\"",
     DAEMON_CONFIG_FIELD_SIZE(record_path) - 1},
    {"subuid_file", daemon_config_set_subuid,
     "must be an absolute file path under %zu bytes or \"off\"",
     DAEMON_CONFIG_FIELD_SIZE(subuid_path)},
    {"mps_control", daemon_config_set_mps,
     "must be the absolute path of nvidia-cuda-mps-control (under %zu "
     "bytes) or \"off\"",
     DAEMON_CONFIG_FIELD_SIZE(mps_control)},
    {"fdinfo_root", daemon_config_set_fdinfo_root,
     "must be an absolute directory path under %zu bytes",
     DAEMON_CONFIG_FIELD_SIZE(fdinfo_root)},
    {"placement", daemon_config_set_placement, "must be \"spread\" or \"pack\"",
     0},
};

static bool file_setting(struct file_ctx *f, struct daemon_config *cfg,
                         const config_setting_t *s)
{
	const char *name = config_setting_name(s);
	const char *str = config_setting_get_string(s);
	double v;
	for (size_t i = 0; i < sizeof(text_keys) / sizeof(text_keys[0]); i++)
		if (strcmp(name, text_keys[i].key) == 0)
			return (str && text_keys[i].set(cfg, str)) ||
			       file_error(f, s, text_keys[i].why,
			                  text_keys[i].size);
	if (strcmp(name, "sla") == 0) {
		if (!number(s, &v) || !daemon_config_set_sla(cfg, v))
			return file_error(f, s,
			                  "must be a number in [1, 1000]");
	} else if (strcmp(name, "epoch_ms") == 0) {
		int t = config_setting_type(s);
		if ((t != CONFIG_TYPE_INT && t != CONFIG_TYPE_INT64) ||
		    !daemon_config_set_epoch(cfg, config_setting_get_int64(s)))
			return file_error(f, s,
			                  "must be an integer in [1, 10000]");
	} else if (strcmp(name, "max_conns_per_uid") == 0 ||
	           strcmp(name, "hello_timeout_ms") == 0 ||
	           strcmp(name, "place_hold_ms") == 0) {
		return file_limit(f, cfg, s);
	} else if (strcmp(name, "metrics_names") == 0) {
		if (config_setting_type(s) != CONFIG_TYPE_BOOL)
			return file_error(f, s, "must be true or false");
		cfg->metrics_names = config_setting_get_bool(s);
	} else if (strcmp(name, "max_tenants_per_uid") == 0) {
		int t = config_setting_type(s);
		long long n = config_setting_get_int64(s);
		if ((t != CONFIG_TYPE_INT && t != CONFIG_TYPE_INT64) || n < 0 ||
		    n > 65536)
			return file_error(f, s,
			                  "must be an integer in [0, 65536] "
			                  "(0: no cap)");
		cfg->max_tenants_per_uid = (unsigned)n;
	} else if (strcmp(name, "admin_group") == 0) {
		int t = config_setting_type(s);
		char num[24];
		if (t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64) {
			snprintf(num, sizeof(num), "%lld",
			         (long long)config_setting_get_int64(s));
			str = num;
		}
		if (!str || !daemon_config_set_admin_group(cfg, str))
			return file_error(f, s,
			                  "must be a group name or a gid "
			                  "that exists");
	} else if (strcmp(name, "params") == 0) {
		return file_param_group(f, CORE_PARAM_POLICY, &cfg->params, s);
	} else if (strcmp(name, "harvest") == 0) {
		return file_param_group(f, CORE_PARAM_HARVEST, &cfg->harvest,
		                        s);
	} else if (strcmp(name, "agones") == 0 ||
	           strcmp(name, "kubernetes") == 0) {
		char why[160];
		const config_setting_t *bad;
		if (!daemon_publish_group(&cfg->publish, s, name[0] == 'k', why,
		                          sizeof(why), &bad))
			return file_error(f, bad, "%s", why);
	} else if (strcmp(name, "apps") == 0) {
		return file_apps(f, cfg, s);
	} else if (strcmp(name, "user_caps") == 0) {
		return file_user_caps(f, cfg, s);
	} else if (strcmp(name, "gpus") == 0) {
		char why[192];
		if (!daemon_config_gpus(cfg, s, why, sizeof(why)))
			return file_error(f, s, "%s", why);
	} else {
		return file_error(f, s, "unknown setting");
	}
	return true;
}

bool daemon_config_file(struct daemon_config *cfg, const char *path, char *err,
                        size_t errlen)
{
	struct file_ctx f = {.path = path, .err = err, .errlen = errlen};
	config_t c;
	config_init(&c);
	bool ok = false;
	if (!config_read_file(&c, path)) {
		if (config_error_type(&c) == CONFIG_ERR_FILE_IO)
			snprintf(err, errlen, "%s: cannot read: %s", path,
			         strerror(errno));
		else
			snprintf(err, errlen, "%s:%d: %s",
			         config_error_file(&c) ? config_error_file(&c)
			                               : path,
			         config_error_line(&c), config_error_text(&c));
		goto out;
	}
	const config_setting_t *root = config_root_setting(&c);
	for (int i = 0; i < config_setting_length(root); i++)
		if (!file_setting(&f, cfg, config_setting_get_elem(root, i)))
			goto out;
	ok = true;
out:
	config_destroy(&c);
	return ok;
}

const struct daemon_app *
daemon_config_publish_app(const struct daemon_config *cfg, const char *name)
{
	if (name[0]) {
		const struct daemon_app *a = daemon_config_app(cfg, name);
		return a && a->cost_ms > 0.0 ? a : NULL;
	}
	for (size_t i = 0; i < cfg->n_apps; i++)
		if (cfg->apps[i].cost_ms > 0.0)
			return &cfg->apps[i];
	return NULL;
}
