/* baton set NAME fps=N|sla=N: pin a tenant's rate or change its SLA. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/client.h"
#include "ipc/msg.h"

void cmd_set_help(FILE *out)
{
	fprintf(
	    out,
	    "Usage: baton set NAME fps=N|sla=N...\n"
	    "Change a registered tenant (every tenant of that name).\n"
	    "\n"
	    "  fps=N   pin the tenant at N frames per second; fps=0 hands "
	    "it back to\n"
	    "          the policy\n"
	    "  sla=N   its frame-rate SLA, N > 0\n"
	    "  --help  this text\n"
	    "\n"
	    "N lies in [0, %g]. Exit status: 0 ok, 1 error reply (no such "
	    "tenant,\n"
	    "denied) or I/O failure, 2 usage error, 4 batond not running.\n",
	    IPC_FPS_MAX);
}

static bool parse_value(const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < 0.0 ||
	    v > IPC_FPS_MAX)
		return false;
	*out = v;
	return true;
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
	if (argc < 3) {
		fprintf(stderr, "baton set: need a tenant name and fps=N or "
		                "sla=N\nTry 'baton set --help'.\n");
		return CLI_EXIT_USAGE;
	}
	json_t *req = json_pack("{s:s, s:s}", "type", "set", "name", argv[1]);
	if (!req)
		return CLI_EXIT_FAILURE;
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i];
		const char *key = strncmp(a, "fps=", 4) == 0   ? "fixed_fps"
		                  : strncmp(a, "sla=", 4) == 0 ? "sla_fps"
		                                               : NULL;
		double v;
		if (!key || !parse_value(a + 4, &v) ||
		    (strcmp(key, "sla_fps") == 0 && v <= 0.0)) {
			fprintf(stderr,
			        "baton set: '%s' is not fps=N or sla=N with N "
			        "in [0, %g] (sla above 0)\n",
			        a, IPC_FPS_MAX);
			json_decref(req);
			return CLI_EXIT_USAGE;
		}
		json_object_set_new(req, key, json_real(v));
	}
	struct cli_client cl;
	int rc = cli_client_open(&cl, "baton set");
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
