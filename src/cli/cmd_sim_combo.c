/* baton sim combo-fig13 (and its presets): COMBO's 128-group sweep
 * (sim/combo/sim_combo_sweep.h), built-ins that are sweeps of the model rather
 * than scenario files. */
#include <errno.h>
#include <string.h>

#include "cli/cli.h"
#include "sim/combo/sim_combo_sweep.h"

int cmd_sim_combo_sweep(const char *name, bool json, double duration_s,
                        bool have_seed, uint64_t seed, bool quiet)
{
	const struct sim_combo_sweep_preset *preset =
	    sim_combo_sweep_find(name);
	if (!preset)
		return CLI_EXIT_USAGE;
	struct sim_combo_sweep_opts o = sim_combo_sweep_opts_of(preset);
	if (duration_s > 0.0) {
		if (!(duration_s > o.warmup_s)) {
			fprintf(
			    stderr,
			    "baton sim: --duration: %g s is not longer than "
			    "the sweep's warm-up (%g s)\n",
			    duration_s, o.warmup_s);
			return CLI_EXIT_USAGE;
		}
		o.duration_s = duration_s;
	}
	if (have_seed)
		o.seed = seed;
	if (!quiet && !json)
		fprintf(stderr,
		        "running %s: 128 groups x 2 traces x 4 variants, %g s "
		        "each\n",
		        name, o.duration_s);
	struct sim_combo_sweep s;
	if (!sim_combo_sweep_run(&o, &s)) {
		fprintf(stderr, "baton sim: %s: the sweep failed\n", name);
		return CLI_EXIT_FAILURE;
	}
	int rc = CLI_EXIT_OK;
	if (json) {
		json_t *j = sim_combo_sweep_json(&s);
		if (!j || json_dumpf(j, stdout, JSON_INDENT(2)) != 0)
			rc = CLI_EXIT_FAILURE;
		json_decref(j);
		fputc('\n', stdout);
	} else {
		sim_combo_sweep_text(stdout, &s);
	}
	if (fflush(stdout) != 0) {
		fprintf(stderr, "baton sim: cannot write the report: %s\n",
		        strerror(errno));
		rc = CLI_EXIT_FAILURE;
	}
	sim_combo_sweep_finish(&s);
	return rc;
}
