/* batond's settings (config.h): defaults < --config file < command line. */
#include "baton/version.h"
#include "daemon/config.h"

#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/params_table.h"
#include "daemon/config_set.h"
#include "daemon/owners.h"
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

/* Validators shared by the file (config_file.c) and the command line
 * (config_set.h). */
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

/* ---- the command line ---- */

/* One line a parameter of the table's group: key, range, default. */
static void usage_params(FILE *out, enum core_param_group group,
                         const char *name)
{
	size_t n;
	const struct core_param *t = core_param_table(&n);
	fprintf(out, "\n  %s = {\n", name);
	for (size_t i = 0; i < n; i++) {
		if (t[i].group != group)
			continue;
		char range[64];
		core_param_range_text(&t[i], range, sizeof(range));
		char def[32];
		core_param_default_text(&t[i], def, sizeof(def));
		fprintf(out, "    %-24s %-16s default %s%s%s\n", t[i].key,
		        range, def, t[i].unit[0] ? " " : "", t[i].unit);
	}
	fprintf(out, "  }\n");
}

void daemon_usage(FILE *out)
{
	fprintf(out,
	        "Usage: batond [OPTION]...\n"
	        "The Baton daemon: paces the games that share this GPU.\n"
	        "\n"
	        "  --socket PATH     control socket (default: $BATON_SOCKET,\n"
	        "                    $XDG_RUNTIME_DIR/baton/batond.sock or\n"
	        "                    /run/baton/batond.sock)\n"
	        "  --policy NAME     sa, fsa, esa or none (default sa)\n"
	        "  --quality MODE    the quality lever (docs/quality.md): off "
	        "(default),\n"
	        "                    baton, or paper (dJay's 33 ms budget and "
	        "greedy)\n"
	        "  --models DIR      games' model files, DIR/GAME.json from "
	        "`baton profile`\n"
	        "                    (default %s)\n"
	        "  --sla FPS         SLA of tenants that register without one "
	        "(default %g)\n"
	        "  --epoch-ms N      control epoch in ms (default %d)\n"
	        "  --metrics HOST:PORT|off\n"
	        "                    Prometheus endpoint (default %s;\n"
	        "                    port 0 picks one); if it cannot bind, "
	        "batond runs\n"
	        "                    without it, with a warning\n"
	        "  --record FILE|off append one line of JSON a second to FILE "
	        "(created\n"
	        "                    0600) for `baton report`; its directory "
	        "must be as\n"
	        "                    safe as the socket's and an existing FILE "
	        "batond's\n"
	        "                    own, or batond exits 2; default off\n"
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
	        "                    quality, models, sla, epoch_ms, "
	        "metrics, record,\n"
	        "                    max_tenants_per_uid, admin_group),\n"
	        "                    metrics_names (true: "
	        "label tenants\n"
	        "                    with name and pid on /metrics, which "
	        "every local\n"
	        "                    user can read), the limits "
	        "max_conns_per_uid\n"
	        "                    (connections one user may hold, "
	        "default %d; root\n"
	        "                    and the daemon's user are exempt), "
	        "subuid_file (whose\n"
	        "                    subordinate uids count as their "
	        "owner's in the\n"
	        "                    per-uid limits; default %s, \"off\": "
	        "none; SIGHUP\n"
	        "                    reads it again) and hello_timeout_ms\n"
	        "                    (a connection's time to say hello, "
	        "default %d),\n"
	        "                    a params group and a harvest group "
	        "(below), apps\n"
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
	        "included).\n"
	        "\n"
	        "The params group takes the core's parameters, the harvest "
	        "group those of\n"
	        "best-effort work (docs/parameters.md says what each means):\n",
	        DAEMON_DEFAULT_MODELS, DAEMON_DEFAULT_SLA,
	        DAEMON_DEFAULT_EPOCH_MS, DAEMON_DEFAULT_METRICS,
	        DAEMON_DEFAULT_MAX_TENANTS_PER_UID,
	        DAEMON_DEFAULT_CONNS_PER_UID, OWNERS_DEFAULT_PATH,
	        DAEMON_DEFAULT_HELLO_MS);
	usage_params(out, CORE_PARAM_POLICY, "params");
	usage_params(out, CORE_PARAM_HARVEST, "harvest");
}

enum daemon_args_result daemon_config_args(struct daemon_config *cfg, int argc,
                                           char **argv, FILE *err_out)
{
	enum {
		O_SOCKET = 256,
		O_POLICY,
		O_QUALITY,
		O_MODELS,
		O_SLA,
		O_EPOCH,
		O_METRICS,
		O_RECORD,
		O_MAX_TENANTS,
		O_ADMIN_GROUP,
		O_CONFIG,
		O_HELP,
		O_VERSION
	};
	static const struct option opts[] = {
	    {"socket", required_argument, NULL, O_SOCKET},
	    {"policy", required_argument, NULL, O_POLICY},
	    {"quality", required_argument, NULL, O_QUALITY},
	    {"models", required_argument, NULL, O_MODELS},
	    {"sla", required_argument, NULL, O_SLA},
	    {"epoch-ms", required_argument, NULL, O_EPOCH},
	    {"metrics", required_argument, NULL, O_METRICS},
	    {"record", required_argument, NULL, O_RECORD},
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
	if (given[O_SOCKET] &&
	    !daemon_config_set_socket(cfg, given[O_SOCKET])) {
		fprintf(err_out, "batond: --socket: 1 to %zu bytes\n",
		        sizeof(cfg->socket_path) - 1);
		return DAEMON_ARGS_USAGE;
	}
	if (given[O_POLICY] &&
	    !daemon_config_set_policy(cfg, given[O_POLICY])) {
		fprintf(
		    err_out,
		    "batond: --policy: \"%s\" is not sa, fsa, esa or none\n",
		    given[O_POLICY]);
		return DAEMON_ARGS_USAGE;
	}
	if (given[O_QUALITY] &&
	    !daemon_config_set_quality(cfg, given[O_QUALITY])) {
		fprintf(err_out,
		        "batond: --quality: \"%s\" is not off, baton or "
		        "paper\n",
		        given[O_QUALITY]);
		return DAEMON_ARGS_USAGE;
	}
	if (given[O_MODELS] &&
	    !daemon_config_set_models(cfg, given[O_MODELS])) {
		fprintf(err_out,
		        "batond: --models: \"%s\" is not an absolute path "
		        "under %zu bytes\n",
		        given[O_MODELS], sizeof(cfg->models_dir));
		return DAEMON_ARGS_USAGE;
	}
	if (given[O_SLA]) {
		errno = 0;
		double v = strtod(given[O_SLA], &end);
		if (errno || end == given[O_SLA] || *end ||
		    !daemon_config_set_sla(cfg, v)) {
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
		    !daemon_config_set_epoch(cfg, v)) {
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
	    !daemon_config_set_admin_group(cfg, given[O_ADMIN_GROUP])) {
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
	if (given[O_RECORD] &&
	    !daemon_config_set_record(cfg, given[O_RECORD])) {
		fprintf(err_out,
		        "batond: --record: \"%s\" is not a path of 1 to %zu "
		        "bytes or off\n",
		        given[O_RECORD], sizeof(cfg->record_path) - 1);
		return DAEMON_ARGS_USAGE;
	}
	return DAEMON_ARGS_RUN;
}
