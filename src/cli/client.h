/* The admin side of the control socket for the baton CLI: connect to
 * ipc_socket_path(), say hello as a client, send one request at a time and
 * read its one-line reply. Also declares the commands built on it
 * (cmd_status.c, cmd_set.c, cmd_policy.c) for the command table. */
#pragma once

#include <stdio.h>
#include <sys/un.h>

#include <jansson.h>

/* Exit status of the admin commands when batond is not running (0, 1 and
 * 2 are cli.h's CLI_EXIT_OK, CLI_EXIT_FAILURE and CLI_EXIT_USAGE). */
#define CLI_EXIT_NO_DAEMON 4
/* baton capacity: the session does not fit; baton run --wait: it did not
 * fit before the timeout. */
#define CLI_EXIT_NO_FIT 5

/* Replies may be longer than BATON_MSG_MAX (a status with many tenants);
 * this bounds what the CLI accepts. */
#define CLI_REPLY_MAX (4u << 20)
/* How long the CLI waits for the daemon before giving up (ms). */
#define CLI_TIMEOUT_MS 5000

struct cli_client {
	int fd;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	const char *prog; /* "baton status", for messages */
	char *buf;        /* bytes read past the last reply */
	size_t len, cap;
};

/* Connects and completes the hello. Returns CLI_EXIT_OK, or prints why to
 * stderr and returns CLI_EXIT_NO_DAEMON (nothing listens on the socket) or
 * CLI_EXIT_FAILURE. */
int cli_client_open(struct cli_client *c, const char *prog);

/* Sends req (the reference is stolen) and reads the reply into *reply (a
 * new reference). An error reply is printed and gives CLI_EXIT_FAILURE,
 * as does an I/O failure or a malformed reply. */
int cli_client_request(struct cli_client *c, json_t *req, json_t **reply);

void cli_client_close(struct cli_client *c);

/* The commands (argv[0] is the command name; each handles --help). */
int cmd_status(int argc, char **argv);
void cmd_status_help(FILE *out);
int cmd_set(int argc, char **argv);
void cmd_set_help(FILE *out);
int cmd_capacity(int argc, char **argv);
void cmd_capacity_help(FILE *out);
/* What else a session needs besides the 3D engine (batond's
 * core/admit_res.h): a share of the encoder, MiB of VRAM; 0 = not said
 * (a profile's own, if any, counts). */
struct cli_capacity_need {
	double encoder;
	double vram_mb;
};
/* Sends a capacity request (profile, or cost_ms and sla; need may be
 * NULL) and reads the reply (cli_client_request's rules); prints one
 * line of it. */
int cli_capacity_ask(struct cli_client *cl, const char *profile, double cost_ms,
                     double sla, const struct cli_capacity_need *need,
                     json_t **reply);
void cli_capacity_print(FILE *out, json_t *reply);
int cmd_policy(int argc, char **argv);
void cmd_policy_help(FILE *out);
