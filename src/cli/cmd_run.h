/* baton run: start a game under the shim. */
#pragma once

#include <stdio.h>

/* argv[0] is "run". Does not return on success (it execs the command);
 * returns 2 on a usage error, 127 if the command was not found, 126 if it
 * could not be executed, 1 if the shim could not be found. */
int cmd_run(int argc, char **argv);
void cmd_run_help(FILE *out);
