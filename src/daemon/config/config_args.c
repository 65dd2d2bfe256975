/* batond's command line and its --help (config.h). */
#include "baton/version.h"
#include "daemon/config/config.h"

#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/params_table.h"
#include "daemon/server/owners.h"
#include "ipc/msg.h"
#include "ipc/socket_path.h"

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

/* The command line's options but --config, --help and --version. */
static void usage_options(FILE *out)
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
	        "                    (default: none)\n",
	        DAEMON_DEFAULT_MODELS, DAEMON_DEFAULT_SLA,
	        DAEMON_DEFAULT_EPOCH_MS, DAEMON_DEFAULT_METRICS,
	        DAEMON_DEFAULT_MAX_TENANTS_PER_UID);
}

void daemon_usage(FILE *out)
{
	usage_options(out);
	fprintf(out,
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
	        "                    reads it again), fdinfo_root (where "
	        "tenants' DRM\n"
	        "                    usage stats are read, PID/fdinfo; "
	        "default /proc),\n"
	        "                    placement (where `baton run` "
	        "without --gpu puts a\n"
	        "                    session: \"spread\", the emptiest "
	        "GPU that admits it,\n"
	        "                    the default, or \"pack\", the "
	        "fullest), place_hold_ms\n"
	        "                    (how long a GPU keeps a placed "
	        "session's seat until\n"
	        "                    it registers, default %d; 0: off) "
	        "and hello_timeout_ms\n"
	        "                    (a connection's time to say hello, "
	        "default %d),\n"
	        "                    a params group and a harvest group "
	        "(below), apps\n"
	        "                    (per-application entries: name, cap,\n"
	        "                    work_conserving, cost_ms, sla, encoder, "
	        "vram_mb) and\n"
	        "                    user_caps (uid, cap); the command line "
	        "wins\n"
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
	        DAEMON_DEFAULT_CONNS_PER_UID, OWNERS_DEFAULT_PATH,
	        DAEMON_DEFAULT_PLACE_HOLD_MS, DAEMON_DEFAULT_HELLO_MS);
	usage_params(out, CORE_PARAM_POLICY, "params");
	usage_params(out, CORE_PARAM_HARVEST, "harvest");
}

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

/* The options whose value a validator of config.h takes as text, and
 * what its error says after "batond: --NAME: \"VALUE\" " (a %zu in it
 * stands for size). */
static const struct {
	int opt;
	bool (*set)(struct daemon_config *cfg, const char *value);
	const char *why;
	size_t size;
} text_opts[] = {
    {O_SOCKET, daemon_config_set_socket, "is not a path of 1 to %zu bytes",
     DAEMON_CONFIG_FIELD_SIZE(socket_path) - 1},
    {O_POLICY, daemon_config_set_policy, "is not sa, fsa, esa or none", 0},
    {O_QUALITY, daemon_config_set_quality, "is not off, baton or paper", 0},
    {O_MODELS, daemon_config_set_models,
     "is not an absolute path under %zu bytes",
     DAEMON_CONFIG_FIELD_SIZE(models_dir)},
    {O_ADMIN_GROUP, daemon_config_set_admin_group,
     "is no group (a name or a gid)", 0},
    {O_METRICS, daemon_config_metrics, "is not HOST:PORT or off", 0},
    {O_RECORD, daemon_config_set_record,
     "is not a path of 1 to %zu bytes or off",
     DAEMON_CONFIG_FIELD_SIZE(record_path) - 1},
};

static const char *opt_name(int opt)
{
	for (size_t i = 0; opts[i].name; i++)
		if (opts[i].val == opt)
			return opts[i].name;
	return "?";
}

static enum daemon_args_result bad_value(FILE *err_out, int opt,
                                         const char *value, const char *why)
{
	fprintf(err_out, "batond: --%s: \"%s\" %s\n", opt_name(opt), value,
	        why);
	return DAEMON_ARGS_USAGE;
}

/* getopt's pass: each option's value into given[], or what to do now
 * (--help, --version, a usage error). DAEMON_ARGS_RUN to go on. */
static enum daemon_args_result collect(int argc, char **argv,
                                       const char **given, FILE *err_out)
{
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
	return DAEMON_ARGS_RUN;
}

/* A whole decimal number of the option's, or false. */
static bool whole(const char *v, long long *out)
{
	char *end;
	errno = 0;
	*out = strtoll(v, &end, 10);
	return !errno && end != v && !*end && v[0] >= '0' && v[0] <= '9';
}

/* The numeric options, after the config file. */
static enum daemon_args_result apply_numbers(struct daemon_config *cfg,
                                             const char **given, FILE *err_out)
{
	const char *v = given[O_SLA];
	if (v) {
		char *end;
		errno = 0;
		double sla = strtod(v, &end);
		if (errno || end == v || *end ||
		    !daemon_config_set_sla(cfg, sla))
			return bad_value(err_out, O_SLA, v,
			                 "is not a number in [1, 1000]");
	}
	long long n;
	if ((v = given[O_EPOCH]) &&
	    (!whole(v, &n) || !daemon_config_set_epoch(cfg, n)))
		return bad_value(err_out, O_EPOCH, v,
		                 "is not an integer in [1, 10000]");
	if ((v = given[O_MAX_TENANTS])) {
		if (!whole(v, &n) || n > 65536)
			return bad_value(err_out, O_MAX_TENANTS, v,
			                 "is not an integer in [0, 65536]");
		cfg->max_tenants_per_uid = (unsigned)n;
	}
	return DAEMON_ARGS_RUN;
}

enum daemon_args_result daemon_config_args(struct daemon_config *cfg, int argc,
                                           char **argv, FILE *err_out)
{
	/* Collected first, applied after the config file. */
	const char *given[O_VERSION + 1] = {0};
	enum daemon_args_result r = collect(argc, argv, given, err_out);
	if (r != DAEMON_ARGS_RUN)
		return r;
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
	for (size_t i = 0; i < sizeof(text_opts) / sizeof(text_opts[0]); i++) {
		const char *v = given[text_opts[i].opt];
		if (!v || text_opts[i].set(cfg, v))
			continue;
		char why[96];
		snprintf(why, sizeof(why), text_opts[i].why, text_opts[i].size);
		return bad_value(err_out, text_opts[i].opt, v, why);
	}
	return apply_numbers(cfg, given, err_out);
}
