/* Private to the baton CLI: the command table's shape, exit codes and the
 * reports of `baton sim`. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "sim/engine/sim.h"

/* Exit codes shared by every command (documented in --help). */
enum cli_exit {
	CLI_EXIT_OK = 0,
	CLI_EXIT_FAILURE = 1, /* runtime failure: I/O, out of memory */
	CLI_EXIT_USAGE = 2,   /* bad command line */
	CLI_EXIT_INVALID = 3, /* invalid scenario or input file */
};

/* One entry of the command table in main.c; argv[0] is the command name. */
struct cli_command {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv);
	void (*help)(FILE *out);
};

int cmd_sim(int argc, char **argv);
void cmd_sim_help(FILE *out);
/* baton sim combo-fig13 and its presets (cmd_sim_combo.c): COMBO's
 * Figs. 13-17 sweep; name must be a sim_combo_sweep_find name. */
int cmd_sim_combo_sweep(const char *name, bool json, double duration_s,
                        bool have_seed, uint64_t seed, bool quiet);
int cmd_ssim(int argc, char **argv);
void cmd_ssim_help(FILE *out);
int cmd_profile(int argc, char **argv);
void cmd_profile_help(FILE *out);
int cmd_report(int argc, char **argv);
void cmd_report_help(FILE *out);

/* One simulated run of a scenario. */
struct cli_run {
	struct sim_gains gains; /* the pair this run used (sweeps) */
	struct sim_result result;
};

/* Everything a report needs: the scenario as run (overrides applied) and
 * its runs, one per sweep pair or a single one. */
struct cli_report {
	const struct sim_scenario *sc;
	const struct cli_run *runs;
	size_t n_runs;
	bool sweep;
};

/* The frame rate a tenant is steered towards: its pinned rate, else its SLA
 * plus the policy's margin (what SA and FSA aim at). */
double cli_reference_fps(const struct sim_scenario *sc,
                         const struct sim_tenant_result *t, size_t index);
/* Mean of the per-second FPS over the last `secs` seconds of the run. */
double cli_tail_fps(const struct sim_tenant_result *t, double secs);
/* First second from which every later per-second FPS lies within `tol`
 * (relative) of ref; negative if that final stretch is shorter than
 * CLI_TAIL_S (it never settled). */
double cli_settle_s(const struct sim_tenant_result *t, double ref, double tol);

/* Sweep figures: the tail is the last 5 s, settling within 2%. */
#define CLI_TAIL_S     5.0
#define CLI_SETTLE_TOL 0.02

/* The scenario uses the capacity lever (a budget GPU, caps or admission):
 * the reports add its figures. */
bool cli_uses_capacity(const struct sim_scenario *sc);

void report_text(FILE *out, const struct cli_report *r);
/* false if writing failed */
bool report_json(FILE *out, const struct cli_report *r);

enum plot_format {
	PLOT_NONE = 0,
	PLOT_SVG,
	PLOT_PNG,
};

/* From the file name's extension (.svg, .png; any case). */
enum plot_format plot_format_of(const char *path);
/* Renders the report to path; on failure false with a reason in errbuf. */
bool plot_write(const char *path, const struct cli_report *r, char *errbuf,
                size_t len);

struct hist;
/* `baton report --plot` (report_plot.c): a history file's tenants over
 * time, titled `title`; on failure false with a reason in err. */
bool report_plot(const char *path, const struct hist *h, const char *title,
                 char *err, size_t errlen);
