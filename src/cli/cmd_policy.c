/* baton policy [NAME]: switch batond's pacing policy (or show it). */
#include <string.h>

#include "cli/cli.h"
#include "cli/client.h"
#include "core/policy.h"

void cmd_policy_help(FILE *out)
{
	fprintf(out, "Usage: baton policy [NAME]\n"
	             "Switch batond's pacing policy at run time; without NAME, "
	             "print it.\n\n");
	for (const struct core_policy *const *p = core_policy_all(); *p; p++)
		fprintf(out, "  %-6s %s\n", (*p)->name, (*p)->summary);
	fprintf(out, "\nExit status: 0 ok, 1 error reply (denied) or I/O "
	             "failure, 2 usage\nerror, 4 batond not running.\n");
}

int cmd_policy(int argc, char **argv)
{
	if (argc >= 2 &&
	    (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		cmd_policy_help(stdout);
		return CLI_EXIT_OK;
	}
	if (argc > 2 || (argc == 2 && !core_policy_find(argv[1]))) {
		fprintf(stderr,
		        "baton policy: expected one of sa, fsa, esa, none\n"
		        "Try 'baton policy --help'.\n");
		return CLI_EXIT_USAGE;
	}
	struct cli_client cl;
	int rc = cli_client_open(&cl, "baton policy");
	if (rc != CLI_EXIT_OK)
		return rc;
	json_t *reply;
	if (argc == 2) {
		rc = cli_client_request(
		    &cl,
		    json_pack("{s:s, s:s}", "type", "policy", "name", argv[1]),
		    &reply);
	} else {
		rc = cli_client_request(
		    &cl, json_pack("{s:s}", "type", "status"), &reply);
		if (rc == CLI_EXIT_OK) {
			const char *p =
			    json_string_value(json_object_get(reply, "policy"));
			printf("%s\n", p ? p : "?");
		}
	}
	json_decref(reply);
	cli_client_close(&cl);
	return rc;
}
