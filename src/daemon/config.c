/* batond's settings (config.h): defaults < --config file < command line. */
#include "baton/version.h"
#include "daemon/config.h"

#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <libconfig.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/config_harvest.h"
#include "ipc/msg.h"
#include "ipc/socket_path.h"

bool daemon_config_defaults(struct daemon_config *cfg)
{
	*cfg = (struct daemon_config){
	    .policy = &core_policy_sa,
	    .default_sla = DAEMON_DEFAULT_SLA,
	    .epoch_ms = DAEMON_DEFAULT_EPOCH_MS,
	    .max_conns_per_uid = DAEMON_DEFAULT_CONNS_PER_UID,
	    .hello_timeout_ms = DAEMON_DEFAULT_HELLO_MS,
	    .params = core_params_default(),
	    .harvest = core_harvest_params_default(),
	    .max_tenants_per_uid = DAEMON_DEFAULT_MAX_TENANTS_PER_UID,
	};
	cfg->params.epoch_s = cfg->epoch_ms / 1000.0;
	daemon_config_metrics(cfg, DAEMON_DEFAULT_METRICS);
	return ipc_socket_path(cfg->socket_path, sizeof(cfg->socket_path));
}

bool daemon_config_metrics(struct daemon_config *cfg, const char *spec)
{
	if (strcmp(spec, "off") == 0) {
		cfg->metrics_on = false;
		return true;
	}
	const char *colon = strrchr(spec, ':');
	if (!colon || !colon[1])
		return false;
	const char *host = spec;
	size_t hlen = (size_t)(colon - spec);
	if (hlen >= 2 && host[0] == '[' && host[hlen - 1] == ']') {
		host++;
		hlen -= 2;
	}
	if (hlen == 0 || hlen >= sizeof(cfg->metrics_host))
		return false;
	char *end;
	errno = 0;
	unsigned long port = strtoul(colon + 1, &end, 10);
	if (errno || *end || port > 65535 || colon[1] == '-' || colon[1] == '+')
		return false;
	memcpy(cfg->metrics_host, host, hlen);
	cfg->metrics_host[hlen] = '\0';
	cfg->metrics_port = (unsigned)port;
	cfg->metrics_on = true;
	return true;
}

/* Validators shared by the file and the command line. */
static bool set_policy(struct daemon_config *cfg, const char *name)
{
	const struct core_policy *p = core_policy_find(name);
	if (!p)
		return false;
	cfg->policy = p;
	return true;
}

static bool set_sla(struct daemon_config *cfg, double v)
{
	if (!isfinite(v) || v < IPC_FPS_MIN || v > IPC_FPS_MAX)
		return false;
	cfg->default_sla = v;
	return true;
}

static bool set_epoch(struct daemon_config *cfg, long long ms)
{
	if (ms < 1 || ms > 10000)
		return false;
	cfg->epoch_ms = (int)ms;
	cfg->params.epoch_s = (double)ms / 1000.0;
	return true;
}

static bool set_socket(struct daemon_config *cfg, const char *path)
{
	size_t n = strlen(path);
	if (n == 0 || n >= sizeof(cfg->socket_path))
		return false;
	memcpy(cfg->socket_path, path, n + 1);
	return true;
}

/* A group name, or a gid written as a number. */
static bool set_admin_group(struct daemon_config *cfg, const char *name)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(name, &end, 10);
	if (name[0] >= '0' && name[0] <= '9' && !errno && !*end &&
	    v < (gid_t)-1) {
		cfg->admin_gid = (gid_t)v;
		cfg->has_admin_group = true;
		return true;
	}
	struct group *g = getgrnam(name);
	if (!g)
		return false;
	cfg->admin_gid = g->gr_gid;
	cfg->has_admin_group = true;
	return true;
}

/* ---- the config file ---- */

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

struct param_field {
	const char *name;
	size_t offset; /* of a double in struct core_params */
	double lo, hi;
	bool lo_open; /* lo itself is not allowed */
};

#define PF(field, lo, hi, open)                                                \
	{                                                                      \
#field, offsetof(struct core_params, field), lo, hi, open      \
	}

static const struct param_field param_fields[] = {
    {"kp", offsetof(struct core_params, pi.kp), 0.0, 10.0, false},
    {"ki", offsetof(struct core_params, pi.ki), 0.0, 10.0, false},
    {"max_ratio", offsetof(struct core_params, pi.max_ratio), 1.0, 100.0, true},
    PF(sla_margin, 0.0, 1.0, false),
    PF(util_target, 0.0, 1.0, true),
    PF(fsa_guard, 0.0, 1.0, false),
    PF(fsa_relax, 0.0, 1.0, false),
    PF(fsa_hold_s, 0.0, 60.0, false),
    PF(k_alpha, 0.0, 1.0, true),
    PF(reach_tol, 0.0, 1.0, false),
    PF(reach_hold_s, 0.0, 60.0, false),
    PF(esa_climb, 0.0, 1.0, false),
    /* the capacity stage (docs/capacity.md; the simulator's ranges) */
    PF(cap_period_s, 0.0, 60.0, true),
    PF(cap_u_over, 0.0, 10.0, true),
    PF(cap_u_limit, 0.0, 10.0, true),
    PF(cap_w_u, 0.0, 100.0, false),
    PF(cap_w_e, 0.0, 100.0, false),
    PF(cap_steal, 0.0, 1.0, true),
    PF(cap_sla_tol, 0.0, 1.0, false),
    PF(cap_qos_margin, 0.0, 100.0, false),
    PF(cap_total, 0.0, 64.0, true),
};

static bool file_params(struct file_ctx *f, struct daemon_config *cfg,
                        const config_setting_t *group)
{
	if (!config_setting_is_group(group))
		return file_error(f, group, "must be a group { ... }");
	for (int i = 0; i < config_setting_length(group); i++) {
		const config_setting_t *s = config_setting_get_elem(group, i);
		const char *key = config_setting_name(s);
		if (strcmp(key, "cap_run") == 0 ||
		    strcmp(key, "cap_quiet") == 0) {
			int t = config_setting_type(s);
			long long n = config_setting_get_int64(s);
			if ((t != CONFIG_TYPE_INT && t != CONFIG_TYPE_INT64) ||
			    n < 1 || n > 1000)
				return file_error(f, s,
				                  "must be an integer in [1, "
				                  "1000]");
			*(key[4] == 'r' ? &cfg->params.cap_run
			                : &cfg->params.cap_quiet) = (uint32_t)n;
			continue;
		}
		const struct param_field *pf = NULL;
		for (size_t k = 0;
		     k < sizeof(param_fields) / sizeof(param_fields[0]); k++)
			if (strcmp(param_fields[k].name,
			           config_setting_name(s)) == 0)
				pf = &param_fields[k];
		if (!pf)
			return file_error(f, s, "unknown parameter");
		double v;
		if (!number(s, &v))
			return file_error(f, s, "must be a number");
		if (!isfinite(v) || v < pf->lo || v > pf->hi ||
		    (pf->lo_open && v == pf->lo))
			return file_error(f, s, "must lie in %s%g, %g]",
			                  pf->lo_open ? "(" : "[", pf->lo,
			                  pf->hi);
		*(double *)((char *)&cfg->params + pf->offset) = v;
	}
	return true;
}

/* harvest = { margin_ms = 1; stuck_factor = 2; ... }; (config_harvest.h) */
static bool file_harvest(struct file_ctx *f, struct daemon_config *cfg,
                         const config_setting_t *group)
{
	if (!config_setting_is_group(group))
		return file_error(f, group, "must be a group { ... }");
	for (int i = 0; i < config_setting_length(group); i++) {
		const config_setting_t *s = config_setting_get_elem(group, i);
		char why[160];
		if (!daemon_config_harvest_key(&cfg->harvest, s, why,
		                               sizeof(why)))
			return file_error(f, s, "%s", why);
	}
	return true;
}

/* The connection limits: integers, [1, 100000] connections and
 * [10, 600000] ms. */
static bool file_limit(struct file_ctx *f, struct daemon_config *cfg,
                       const config_setting_t *s)
{
	bool conns = strcmp(config_setting_name(s), "max_conns_per_uid") == 0;
	long long lo = conns ? 1 : 10, hi = conns ? 100000 : 600000;
	int t = config_setting_type(s);
	long long v = config_setting_get_int64(s);
	if ((t != CONFIG_TYPE_INT && t != CONFIG_TYPE_INT64) || v < lo ||
	    v > hi)
		return file_error(f, s, "must be an integer in [%lld, %lld]",
		                  lo, hi);
	*(conns ? &cfg->max_conns_per_uid : &cfg->hello_timeout_ms) = (int)v;
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
		return file_error(f, e, "%s: %s must be a number in %s%g, %g]",
		                  what, config_setting_name(m),
		                  lo_open ? "(" : "[", lo, hi);
	*out = v;
	return true;
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
		for (int j = 0; j < config_setting_length(e); j++) {
			const config_setting_t *m =
			    config_setting_get_elem(e, j);
			const char *key = config_setting_name(m);
			bool ok = true;
			if (strcmp(key, "name") == 0) {
			} else if (strcmp(key, "cap") == 0) {
				ok = entry_number(f, list, what, m, 0.0, 1.0,
				                  true, &a.cap);
			} else if (strcmp(key, "cost_ms") == 0) {
				ok = entry_number(f, list, what, m, 0.0,
				                  IPC_COST_MS_MAX, true,
				                  &a.cost_ms);
			} else if (strcmp(key, "sla") == 0) {
				ok = entry_number(f, list, what, m, IPC_FPS_MIN,
				                  IPC_FPS_MAX, false,
				                  &a.sla_fps);
			} else if (strcmp(key, "work_conserving") == 0) {
				if (config_setting_type(m) != CONFIG_TYPE_BOOL)
					return file_error(
					    f, list,
					    "%s: work_conserving must be true "
					    "or false",
					    what);
				a.has_wc = true;
				a.work_conserving = config_setting_get_bool(m);
			} else {
				return file_error(
				    f, list,
				    "%s: unknown key %s (name, cap, "
				    "work_conserving, cost_ms, sla)",
				    what, key);
			}
			if (!ok)
				return false;
		}
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

static bool file_setting(struct file_ctx *f, struct daemon_config *cfg,
                         const config_setting_t *s)
{
	const char *name = config_setting_name(s);
	const char *str = config_setting_get_string(s);
	double v;
	if (strcmp(name, "socket") == 0) {
		if (!str || !set_socket(cfg, str))
			return file_error(f, s,
			                  "must be a socket path of 1 "
			                  "to 107 bytes");
	} else if (strcmp(name, "policy") == 0) {
		if (!str || !set_policy(cfg, str))
			return file_error(f, s,
			                  "must be \"sa\", \"fsa\", \"esa\" or "
			                  "\"none\"");
	} else if (strcmp(name, "sla") == 0) {
		if (!number(s, &v) || !set_sla(cfg, v))
			return file_error(f, s,
			                  "must be a number in [1, 1000]");
	} else if (strcmp(name, "epoch_ms") == 0) {
		int t = config_setting_type(s);
		if ((t != CONFIG_TYPE_INT && t != CONFIG_TYPE_INT64) ||
		    !set_epoch(cfg, config_setting_get_int64(s)))
			return file_error(f, s,
			                  "must be an integer in [1, 10000]");
	} else if (strcmp(name, "max_conns_per_uid") == 0 ||
	           strcmp(name, "hello_timeout_ms") == 0) {
		return file_limit(f, cfg, s);
	} else if (strcmp(name, "metrics") == 0) {
		if (!str || !daemon_config_metrics(cfg, str))
			return file_error(f, s,
			                  "must be \"HOST:PORT\" or "
			                  "\"off\"");
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
		if (!str || !set_admin_group(cfg, str))
			return file_error(f, s,
			                  "must be a group name or a gid "
			                  "that exists");
	} else if (strcmp(name, "params") == 0) {
		return file_params(f, cfg, s);
	} else if (strcmp(name, "harvest") == 0) {
		return file_harvest(f, cfg, s);
	} else if (strcmp(name, "apps") == 0) {
		return file_apps(f, cfg, s);
	} else if (strcmp(name, "user_caps") == 0) {
		return file_user_caps(f, cfg, s);
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

/* ---- the command line ---- */

void daemon_usage(FILE *out)
{
	fprintf(
	    out,
	    "Usage: batond [OPTION]...\n"
	    "The Baton daemon: paces the games that share this GPU.\n"
	    "\n"
	    "  --socket PATH     control socket (default: $BATON_SOCKET,\n"
	    "                    $XDG_RUNTIME_DIR/baton/batond.sock or\n"
	    "                    /run/baton/batond.sock)\n"
	    "  --policy NAME     sa, fsa, esa or none (default sa)\n"
	    "  --sla FPS         SLA of tenants that register without one "
	    "(default %g)\n"
	    "  --epoch-ms N      control epoch in ms (default %d)\n"
	    "  --metrics HOST:PORT|off\n"
	    "                    Prometheus endpoint (default %s;\n"
	    "                    port 0 picks one); if it cannot bind, "
	    "batond runs\n"
	    "                    without it, with a warning\n"
	    "  --max-tenants-per-uid N\n"
	    "                    tenants one uid may have registered "
	    "(default %d;\n"
	    "                    0: no cap)\n"
	    "  --admin-group GROUP\n"
	    "                    its members (supplementary groups too) "
	    "may send admin\n"
	    "                    requests, besides root, batond's user "
	    "and its group\n"
	    "                    (default: none)\n"
	    "  --config FILE     libconfig file with the same keys "
	    "(socket, policy,\n"
	    "                    sla, epoch_ms, metrics, "
	    "max_tenants_per_uid,\n"
	    "                    admin_group), metrics_names (true: "
	    "label tenants\n"
	    "                    with name and pid on /metrics, which "
	    "every local\n"
	    "                    user can read), the limits "
	    "max_conns_per_uid\n"
	    "                    (connections one user may hold, "
	    "default %d; root\n"
	    "                    and the daemon's user are exempt) and "
	    "hello_timeout_ms\n"
	    "                    (a connection's time to say hello, "
	    "default %d),\n"
	    "                    and a params group (kp, ki, max_ratio,\n"
	    "                    sla_margin, util_target, fsa_guard, "
	    "fsa_relax,\n"
	    "                    fsa_hold_s, k_alpha, reach_tol, "
	    "reach_hold_s,\n"
	    "                    esa_climb, cap_period_s, cap_u_over, "
	    "cap_u_limit,\n"
	    "                    cap_w_u, cap_w_e, cap_steal, cap_run, "
	    "cap_quiet,\n"
	    "                    cap_sla_tol, cap_qos_margin, cap_total), a "
	    "harvest\n"
	    "                    group (best-effort work: margin_ms, "
	    "util_margin,\n"
	    "                    periodical_ms, continuous_ms, enter_quiet, "
	    "stuck_factor,\n"
	    "                    stuck_ms, align, slot_min_ms, "
	    "period_tolerance), apps\n"
	    "                    (per-application entries: name, cap,\n"
	    "                    work_conserving, cost_ms, sla) and "
	    "user_caps\n"
	    "                    (uid, cap); the command line wins\n"
	    "  --help            this text\n"
	    "  --version         the version\n"
	    "\n"
	    "Logs go to stderr; BATON_LOG=error|warn|info|debug sets the "
	    "level.\n"
	    "Exit status: 0 after SIGTERM or SIGINT, 1 on a runtime "
	    "failure,\n"
	    "2 on a usage or configuration error (an unsafe socket "
	    "directory\n"
	    "included).\n",
	    DAEMON_DEFAULT_SLA, DAEMON_DEFAULT_EPOCH_MS, DAEMON_DEFAULT_METRICS,
	    DAEMON_DEFAULT_MAX_TENANTS_PER_UID, DAEMON_DEFAULT_CONNS_PER_UID,
	    DAEMON_DEFAULT_HELLO_MS);
}

enum daemon_args_result daemon_config_args(struct daemon_config *cfg, int argc,
                                           char **argv, FILE *err_out)
{
	enum {
		O_SOCKET = 256,
		O_POLICY,
		O_SLA,
		O_EPOCH,
		O_METRICS,
		O_MAX_TENANTS,
		O_ADMIN_GROUP,
		O_CONFIG,
		O_HELP,
		O_VERSION
	};
	static const struct option opts[] = {
	    {"socket", required_argument, NULL, O_SOCKET},
	    {"policy", required_argument, NULL, O_POLICY},
	    {"sla", required_argument, NULL, O_SLA},
	    {"epoch-ms", required_argument, NULL, O_EPOCH},
	    {"metrics", required_argument, NULL, O_METRICS},
	    {"max-tenants-per-uid", required_argument, NULL, O_MAX_TENANTS},
	    {"admin-group", required_argument, NULL, O_ADMIN_GROUP},
	    {"config", required_argument, NULL, O_CONFIG},
	    {"help", no_argument, NULL, O_HELP},
	    {"version", no_argument, NULL, O_VERSION},
	    {0},
	};
	/* Collected first, applied after the config file. */
	const char *given[O_VERSION + 1] = {0};
	optind = 1;
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		switch (c) {
		case O_HELP:
			daemon_usage(stdout);
			return DAEMON_ARGS_EXIT_OK;
		case O_VERSION:
			printf("batond %s\n", BATON_VERSION);
			return DAEMON_ARGS_EXIT_OK;
		case ':':
			fprintf(err_out, "batond: %s needs a value\n",
			        argv[optind - 1]);
			return DAEMON_ARGS_USAGE;
		case '?':
			fprintf(err_out,
			        "batond: unknown option %s (see --help)\n",
			        argv[optind - 1]);
			return DAEMON_ARGS_USAGE;
		default:
			given[c] = optarg;
		}
	}
	if (optind < argc) {
		fprintf(err_out, "batond: unexpected argument %s\n",
		        argv[optind]);
		return DAEMON_ARGS_USAGE;
	}
	if (!daemon_config_defaults(cfg) && !given[O_SOCKET]) {
		fprintf(err_out, "batond: the default socket path is too long; "
		                 "use --socket\n");
		return DAEMON_ARGS_USAGE;
	}
	if (given[O_CONFIG]) {
		char err[512];
		if (!daemon_config_file(cfg, given[O_CONFIG], err,
		                        sizeof(err))) {
			fprintf(err_out, "batond: %s\n", err);
			return DAEMON_ARGS_USAGE;
		}
	}
	char *end;
	if (given[O_SOCKET] && !set_socket(cfg, given[O_SOCKET])) {
		fprintf(err_out, "batond: --socket: 1 to %zu bytes\n",
		        sizeof(cfg->socket_path) - 1);
		return DAEMON_ARGS_USAGE;
	}
	if (given[O_POLICY] && !set_policy(cfg, given[O_POLICY])) {
		fprintf(
		    err_out,
		    "batond: --policy: \"%s\" is not sa, fsa, esa or none\n",
		    given[O_POLICY]);
		return DAEMON_ARGS_USAGE;
	}
	if (given[O_SLA]) {
		errno = 0;
		double v = strtod(given[O_SLA], &end);
		if (errno || end == given[O_SLA] || *end || !set_sla(cfg, v)) {
			fprintf(err_out,
			        "batond: --sla: \"%s\" is not a number in "
			        "[1, 1000]\n",
			        given[O_SLA]);
			return DAEMON_ARGS_USAGE;
		}
	}
	if (given[O_EPOCH]) {
		errno = 0;
		long long v = strtoll(given[O_EPOCH], &end, 10);
		if (errno || end == given[O_EPOCH] || *end ||
		    !set_epoch(cfg, v)) {
			fprintf(err_out,
			        "batond: --epoch-ms: \"%s\" is not an integer "
			        "in [1, 10000]\n",
			        given[O_EPOCH]);
			return DAEMON_ARGS_USAGE;
		}
	}
	if (given[O_MAX_TENANTS]) {
		errno = 0;
		const char *v = given[O_MAX_TENANTS];
		unsigned long n = strtoul(v, &end, 10);
		if (errno || end == v || *end || v[0] < '0' || v[0] > '9' ||
		    n > 65536) {
			fprintf(err_out,
			        "batond: --max-tenants-per-uid: \"%s\" is not "
			        "an integer in [0, 65536]\n",
			        v);
			return DAEMON_ARGS_USAGE;
		}
		cfg->max_tenants_per_uid = (unsigned)n;
	}
	if (given[O_ADMIN_GROUP] &&
	    !set_admin_group(cfg, given[O_ADMIN_GROUP])) {
		fprintf(err_out,
		        "batond: --admin-group: no group \"%s\" (a name or a "
		        "gid)\n",
		        given[O_ADMIN_GROUP]);
		return DAEMON_ARGS_USAGE;
	}
	if (given[O_METRICS] && !daemon_config_metrics(cfg, given[O_METRICS])) {
		fprintf(err_out,
		        "batond: --metrics: \"%s\" is not HOST:PORT or off\n",
		        given[O_METRICS]);
		return DAEMON_ARGS_USAGE;
	}
	return DAEMON_ARGS_RUN;
}
