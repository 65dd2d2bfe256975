/* baton set [NAME] [--id N] [--uid U] [--all] fps=N|sla=N|cap=C|
 * work_conserving=yes|no|weight=W|--level N: pin a tenant's rate, change its
 * SLA, its GPU cap or whether it may run past the cap while the GPU idles; a
 * best-effort tenant's weight; a game's quality level. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/client.h"
#include "ipc/msg.h"

void cmd_set_help(FILE *out)
{
	fprintf(
	    out,
	    "Usage: baton set [NAME] [--id N] [--uid U] [--all] "
	    "fps=N|sla=N|cap=C|work_conserving=yes|no|\n"
	    "       weight=W...\n"
	    "Change registered tenants: those called NAME, the one of id N "
	    "(baton\n"
	    "status --json shows ids), those of user U, or those that match "
	    "every\n"
	    "one given.\n"
	    "\n"
	    "  NAME      the tenants of that name; refused when they belong "
	    "to more\n"
	    "            than one user, unless --uid, --id or --all picks\n"
	    "  --id N    the tenant of that id\n"
	    "  --uid U   the tenants of that user (a uid)\n"
	    "  --all     every tenant called NAME, whoever runs it\n"
	    "  fps=N     pin the tenant at N frames per second; fps=0 hands "
	    "it back to\n"
	    "            the policy\n"
	    "  sla=N     its frame-rate SLA\n"
	    "  cap=C     its published GPU cap: a share of one GPU in (0, "
	    "1]; cap=none\n"
	    "            removes it (docs/capacity.md)\n"
	    "  work_conserving=yes|no\n"
	    "            whether it may run past its cap while nobody with "
	    "budget has\n"
	    "            work\n"
	    "  weight=W  a best-effort tenant's weight, in (0, %g]: its "
	    "share of the\n"
	    "            games' idle GPU time against the other best-effort "
	    "tenants'\n"
	    "            (docs/harvesting.md). A best-effort tenant takes "
	    "weight and\n"
	    "            cap only, a game anything but weight\n"
	    "  --level N|none, level=N|none\n"
	    "            pin a game that uses the SDK's quality API at its "
	    "level N\n"
	    "            (0 = cheapest, as baton status lists them); none "
	    "unpins\n"
	    "  --help    this text\n"
	    "\n"
	    "N lies in [%g, %g] (fps=0 too). Root, batond's user and members "
	    "of its\n"
	    "group or admin_group may set any tenant; other users their "
	    "own.\n"
	    "Exit status: 0 ok, 1 error reply (no such tenant, denied, a "
	    "name of\n"
	    "several users) or I/O failure, 2 usage error, 4 batond not "
	    "running.\n",
	    IPC_BE_WEIGHT_MAX, IPC_FPS_MIN, IPC_FPS_MAX);
}

static bool parse_value(const char *s, bool zero_ok, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v))
		return false;
	if (!(zero_ok && v == 0.0) && (v < IPC_FPS_MIN || v > IPC_FPS_MAX))
		return false;
	*out = v;
	return true;
}

static bool parse_cap(const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || !(v > 0.0) || v > 1.0)
		return false;
	*out = v;
	return true;
}

static bool parse_count(const char *s, unsigned long long lo,
                        unsigned long long hi, unsigned long long *out)
{
	char *end;
	errno = 0;
	if (!s || *s < '0' || *s > '9')
		return false;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

static int usage(const char *fmt, const char *arg)
{
	fprintf(stderr, "baton set: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'baton set --help'.\n");
	return CLI_EXIT_USAGE;
}

/* fps=N or sla=N into req. */
static int set_rate(const char *a, json_t *req)
{
	bool fps = a[0] == 'f';
	double x;
	if (!parse_value(a + 4, fps, &x)) {
		fprintf(stderr, "baton set: '%s': N must lie in [%g, %g]%s\n",
		        a, IPC_FPS_MIN, IPC_FPS_MAX, fps ? " or be 0" : "");
		return CLI_EXIT_USAGE;
	}
	json_object_set_new(req, fps ? "fixed_fps" : "sla_fps", json_real(x));
	return CLI_EXIT_OK;
}

/* cap=C or cap=none into req. */
static int set_cap(const char *a, json_t *req)
{
	double x;
	if (strcmp(a + 4, "none") == 0) {
		x = 0.0;
	} else if (!parse_cap(a + 4, &x)) {
		fprintf(stderr,
		        "baton set: '%s': C must be a share of one GPU in (0, "
		        "1], or none\n",
		        a);
		return CLI_EXIT_USAGE;
	}
	json_object_set_new(req, "cap", json_real(x));
	return CLI_EXIT_OK;
}

/* weight=W into req. */
static int set_weight(const char *a, json_t *req)
{
	char *end;
	errno = 0;
	double x = strtod(a + 7, &end);
	if (errno || end == a + 7 || *end || !isfinite(x) || !(x > 0.0) ||
	    x > IPC_BE_WEIGHT_MAX) {
		fprintf(stderr, "baton set: '%s': W must lie in (0, %g]\n", a,
		        IPC_BE_WEIGHT_MAX);
		return CLI_EXIT_USAGE;
	}
	json_object_set_new(req, "weight", json_real(x));
	return CLI_EXIT_OK;
}

/* work_conserving=yes|no (or true|false) into req. */
static int set_work_conserving(const char *a, json_t *req)
{
	const char *yn = a + 16;
	bool yes = strcmp(yn, "yes") == 0 || strcmp(yn, "true") == 0;
	if (!yes && strcmp(yn, "no") != 0 && strcmp(yn, "false") != 0)
		return usage("'%s': yes or no", a);
	json_object_set_new(req, "work_conserving", json_boolean(yes));
	return CLI_EXIT_OK;
}

/* A KEY=VALUE argument: -1 if a is none, else CLI_EXIT_OK or a usage
 * error printed. */
static int set_assignment(const char *a, json_t *req)
{
	if (strncmp(a, "fps=", 4) == 0 || strncmp(a, "sla=", 4) == 0)
		return set_rate(a, req);
	if (strncmp(a, "cap=", 4) == 0)
		return set_cap(a, req);
	if (strncmp(a, "weight=", 7) == 0)
		return set_weight(a, req);
	if (strncmp(a, "work_conserving=", 16) == 0)
		return set_work_conserving(a, req);
	return -1;
}

/* --id N or --uid U (n the next argument, NULL if none) into req. */
static int set_id(const char *a, const char *n, json_t *req)
{
	bool id = a[2] == 'i';
	unsigned long long v;
	if (!parse_count(n, id ? 1 : 0,
	                 id ? (unsigned long long)INT64_MAX : UINT32_MAX - 1ULL,
	                 &v))
		return usage("%s needs a number (an id from baton status "
		             "--json, a uid)",
		             a);
	json_object_set_new(req, id ? "id" : "uid",
	                    json_integer((json_int_t)v));
	return CLI_EXIT_OK;
}

/* --level N, --level none or level=N (n the level, NULL if none). */
static int set_level(const char *a, const char *n, json_t *req)
{
	unsigned long long v = 0;
	bool none = n && strcmp(n, "none") == 0;
	if (!none && !parse_count(n, 0, 7, &v))
		return usage("%s needs a level (0 to 7, one the game declared) "
		             "or none",
		             a);
	json_object_set_new(req, "level",
	                    json_integer(none ? -1 : (json_int_t)v));
	return CLI_EXIT_OK;
}

/* What the request names and what it sets, checked. */
static int check_request(json_t *req, bool all, bool what, bool value)
{
	if (all && !json_object_get(req, "name"))
		return usage("%s goes with a NAME", "--all");
	if (all)
		json_object_set_new(req, "all", json_true());
	if (!what)
		return usage("%s", "need a tenant: NAME, --id N or --uid U");
	if (!value)
		return usage("%s", "need fps=N, sla=N, cap=C, "
		                   "work_conserving=yes|no or weight=W");
	return CLI_EXIT_OK;
}

/* The request's fields from argv; CLI_EXIT_OK or a usage error printed. */
static int build(int argc, char **argv, json_t *req)
{
	bool what = false, value = false, all = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int rc;
		if (strcmp(a, "--id") == 0 || strcmp(a, "--uid") == 0) {
			rc = set_id(a, i + 1 < argc ? argv[i + 1] : NULL, req);
			what = true;
			i++;
		} else if (strcmp(a, "--all") == 0) {
			all = true;
			continue;
		} else if (strcmp(a, "--level") == 0 ||
		           strncmp(a, "level=", 6) == 0) {
			const char *n = a[0] == '-'
			                    ? (i + 1 < argc ? argv[++i] : NULL)
			                    : a + 6;
			rc = set_level(a, n, req);
			value = true;
		} else if ((rc = set_assignment(a, req)) >= 0) {
			value = true;
		} else if (a[0] == '-') {
			return usage("unknown option %s", a);
		} else if (json_object_get(req, "name")) {
			return usage("'%s' is not fps=N, sla=N, cap=C, "
			             "work_conserving=yes|no or weight=W",
			             a);
		} else {
			json_object_set_new(req, "name", json_string(a));
			what = true;
			continue;
		}
		if (rc != CLI_EXIT_OK)
			return rc;
	}
	return check_request(req, all, what, value);
}

int cmd_set(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--help") == 0 ||
		    strcmp(argv[i], "-h") == 0) {
			cmd_set_help(stdout);
			return CLI_EXIT_OK;
		}
	}
	json_t *req = json_pack("{s:s}", "type", "set");
	if (!req)
		return CLI_EXIT_FAILURE;
	int rc = build(argc, argv, req);
	if (rc != CLI_EXIT_OK) {
		json_decref(req);
		return rc;
	}
	struct cli_client cl;
	rc = cli_client_open(&cl, "baton set");
	if (rc != CLI_EXIT_OK) {
		json_decref(req);
		return rc;
	}
	json_t *reply;
	rc = cli_client_request(&cl, req, &reply);
	json_decref(reply);
	cli_client_close(&cl);
	return rc;
}
