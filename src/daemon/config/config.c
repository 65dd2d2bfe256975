/* batond's settings (config.h): defaults < --config file < command line. */
#include "daemon/config/config.h"

#include <errno.h>
#include <grp.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/params_table.h"
#include "daemon/server/owners.h"
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
	    .place_hold_ms = DAEMON_DEFAULT_PLACE_HOLD_MS,
	    .params = core_params_default(),
	    .harvest = core_harvest_params_default(),
	    .max_tenants_per_uid = DAEMON_DEFAULT_MAX_TENANTS_PER_UID,
	};
	cfg->params.epoch_s = cfg->epoch_ms / 1000.0;
	daemon_config_set_models(cfg, DAEMON_DEFAULT_MODELS);
	daemon_config_set_subuid(cfg, OWNERS_DEFAULT_PATH);
	daemon_publish_defaults(&cfg->publish);
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

/* ---- validators shared by the file (config_file.c) and the command line
 * (config_args.c) ---- */

bool daemon_config_set_policy(struct daemon_config *cfg, const char *name)
{
	const struct core_policy *p = core_policy_find(name);
	if (!p)
		return false;
	cfg->policy = p;
	return true;
}

bool daemon_config_set_sla(struct daemon_config *cfg, double v)
{
	if (!isfinite(v) || v < IPC_FPS_MIN || v > IPC_FPS_MAX)
		return false;
	cfg->default_sla = v;
	return true;
}

bool daemon_config_set_epoch(struct daemon_config *cfg, long long ms)
{
	if (ms < 1 || ms > 10000)
		return false;
	cfg->epoch_ms = (int)ms;
	cfg->params.epoch_s = (double)ms / 1000.0;
	return true;
}

bool daemon_config_set_socket(struct daemon_config *cfg, const char *path)
{
	size_t n = strlen(path);
	if (n == 0 || n >= sizeof(cfg->socket_path))
		return false;
	memcpy(cfg->socket_path, path, n + 1);
	return true;
}

bool daemon_config_set_quality(struct daemon_config *cfg, const char *mode)
{
	struct core_params *p = &cfg->params;
	if (strcmp(mode, "off") == 0) {
		p->quality_on = false;
	} else if (strcmp(mode, "baton") == 0 || strcmp(mode, "paper") == 0) {
		p->quality_on = true;
		p->quality_paper = mode[0] == 'p';
		/* The mode's budget and solver; Warning and Critical stay as
		 * the params group set them, whichever comes first. */
		struct quality_params d = p->quality_paper
		                              ? quality_params_djay()
		                              : quality_params_default();
		p->quality.budget = d.budget;
		p->quality.strict = d.strict;
		p->quality.exact_reassign = d.exact_reassign;
	} else {
		return false;
	}
	return true;
}

bool daemon_config_set_models(struct daemon_config *cfg, const char *dir)
{
	size_t n = strlen(dir);
	if (n == 0 || dir[0] != '/' || n >= sizeof(cfg->models_dir))
		return false;
	memcpy(cfg->models_dir, dir, n + 1);
	return true;
}

bool daemon_config_set_record(struct daemon_config *cfg, const char *path)
{
	size_t n = strlen(path);
	if (strcmp(path, "off") == 0) {
		cfg->record_path[0] = '\0';
		return true;
	}
	if (n == 0 || n >= sizeof(cfg->record_path))
		return false;
	memcpy(cfg->record_path, path, n + 1);
	return true;
}

bool daemon_config_set_subuid(struct daemon_config *cfg, const char *path)
{
	size_t n = strlen(path);
	if (strcmp(path, "off") == 0) {
		cfg->subuid_path[0] = '\0';
		return true;
	}
	if (n == 0 || path[0] != '/' || n >= sizeof(cfg->subuid_path))
		return false;
	memcpy(cfg->subuid_path, path, n + 1);
	return true;
}

bool daemon_config_set_mps(struct daemon_config *cfg, const char *path)
{
	size_t n = strlen(path);
	if (strcmp(path, "off") == 0) {
		cfg->mps_control[0] = '\0';
		return true;
	}
	if (n == 0 || path[0] != '/' || n >= sizeof(cfg->mps_control))
		return false;
	memcpy(cfg->mps_control, path, n + 1);
	return true;
}

bool daemon_config_set_fdinfo_root(struct daemon_config *cfg, const char *path)
{
	size_t n = strlen(path);
	if (n == 0 || path[0] != '/' || n >= sizeof(cfg->fdinfo_root))
		return false;
	memcpy(cfg->fdinfo_root, path, n + 1);
	return true;
}

bool daemon_config_set_placement(struct daemon_config *cfg, const char *mode)
{
	return core_place_mode_parse(mode, &cfg->placement);
}

/* A group name, or a gid written as a number. */
bool daemon_config_set_admin_group(struct daemon_config *cfg, const char *name)
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
