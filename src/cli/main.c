/* baton: the command-line front end. Commands live in a table so that run,
 * status, set and policy slot in next to sim without touching dispatch. */
#include <stdio.h>
#include <string.h>

#include "baton/version.h"
#include "cli/cli.h"
#include "cli/client.h"
#include "cli/cmd_run.h"

static const struct cli_command commands[] = {
    {"run", "launch a game under the pacing shim (OpenGL and Vulkan)", cmd_run,
     cmd_run_help},
    {"status", "show batond's tenants and the GPU", cmd_status,
     cmd_status_help},
    {"set", "pin a tenant's frame rate, change its SLA or GPU cap", cmd_set,
     cmd_set_help},
    {"capacity", "ask batond whether one more session fits on the GPU",
     cmd_capacity, cmd_capacity_help},
    {"policy", "show or change batond's pacing policy", cmd_policy,
     cmd_policy_help},
    {"sim", "simulate a scenario and report each tenant's frame rate", cmd_sim,
     cmd_sim_help},
    {"ssim", "mean SSIM of two PPM/PGM images (the quality lever's metric)",
     cmd_ssim, cmd_ssim_help},
    {"profile", "run an SDK game at each quality level, fit its models",
     cmd_profile, cmd_profile_help},
    {"report", "summarise and plot batond's history file (batond --record)",
     cmd_report, cmd_report_help},
};

#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static const struct cli_command *find_command(const char *name)
{
	for (size_t i = 0; i < N_COMMANDS; i++) {
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	}
	return NULL;
}

static void usage(FILE *out)
{
	fprintf(out, "Usage: baton [--help] [--version] COMMAND [ARGS...]\n"
	             "\n"
	             "Baton shares one GPU among game sessions: it keeps every "
	             "game at its\n"
	             "frame-rate SLA and hands the idle cycles to batch work.\n"
	             "\n"
	             "Commands:\n");
	for (size_t i = 0; i < N_COMMANDS; i++)
		fprintf(out, "  %-10s %s\n", commands[i].name,
		        commands[i].summary);
	fprintf(out,
	        "\n"
	        "Run 'baton help COMMAND' or 'baton COMMAND --help' for its "
	        "options.\n"
	        "\n"
	        "Exit status: 0 success, 1 runtime failure, 2 usage error, 3 "
	        "invalid scenario\nor input, 4 batond not running, 5 no room "
	        "(baton capacity, baton run --wait),\n6 the game failed (baton "
	        "profile); 126/127 when the command cannot be run\nor is not "
	        "found (baton run, baton profile), else baton run gives the\n"
	        "command's own status.\n");
}

static int unknown_command(const char *name)
{
	fprintf(stderr, "baton: unknown command '%s'\n\n", name);
	usage(stderr);
	return CLI_EXIT_USAGE;
}

static int help(int argc, char **argv)
{
	if (argc < 2) {
		usage(stdout);
		return CLI_EXIT_OK;
	}
	if (argc > 2) {
		fprintf(stderr, "baton help: too many arguments\n");
		return CLI_EXIT_USAGE;
	}
	const struct cli_command *cmd = find_command(argv[1]);
	if (!cmd)
		return unknown_command(argv[1]);
	cmd->help(stdout);
	return CLI_EXIT_OK;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return CLI_EXIT_USAGE;
	}
	const char *first = argv[1];
	if (strcmp(first, "--help") == 0 || strcmp(first, "-h") == 0)
		return help(1, argv + 1);
	if (strcmp(first, "--version") == 0 || strcmp(first, "-V") == 0) {
		printf("baton %s\n", BATON_VERSION);
		return CLI_EXIT_OK;
	}
	if (strcmp(first, "help") == 0)
		return help(argc - 1, argv + 1);
	if (first[0] == '-') {
		fprintf(stderr, "baton: unknown option '%s'\n\n", first);
		usage(stderr);
		return CLI_EXIT_USAGE;
	}
	const struct cli_command *cmd = find_command(first);
	if (!cmd)
		return unknown_command(first);
	return cmd->run(argc - 1, argv + 1);
}
