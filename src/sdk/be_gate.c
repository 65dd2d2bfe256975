/* What the two launch gates (cl/gate.c, cuda/gate.c) share: opening the
 * client `baton run --be` configures through the environment. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "sdk/be_internal.h"

static double env_double(const char *name, double def)
{
	const char *v = getenv(name);
	if (!v || !*v)
		return def;
	char *end;
	errno = 0;
	double x = strtod(v, &end);
	if (errno || *end) {
		be_log(BE_LOG_CALL, "%s: '%s' is not a number; using %g", name,
		       v, def);
		return def;
	}
	return x;
}

int be_gate_open(const char *api, const char *max_wait_env,
                 baton_be_probe_fn probe, bool cpu_device,
                 be_gpu_fits_fn gpu_fits, baton_be **out)
{
	struct baton_be_options o;
	baton_be_options_init(&o);
	o.weight = env_double("BATON_BE_WEIGHT", 1.0);
	o.cap = env_double("BATON_CAP", 0.0);
	o.max_wait_ms = (int64_t)env_double(max_wait_env, 1000.0);
	if (o.max_wait_ms <= 0)
		o.max_wait_ms = 1000;
	o.probe = probe;
	o.cpu_device = cpu_device;
	char name[BE_NAME_MAX];
	const char *n = getenv("BATON_NAME");
	snprintf(name, sizeof(name), "%s",
	         n && *n ? n : program_invocation_short_name);
	if (!name[0])
		snprintf(name, sizeof(name), "%s", api);
	int r = be_open(name, &o, gpu_fits, out);
	if (r != BATON_OK) {
		be_log(BE_LOG_CALL, "the %s gate is off: %s", api,
		       baton_strerror(r));
		*out = NULL;
		return r;
	}
	/* Each launch is a task here: GPU grid's per-task restart of the
	 * quiet count would keep the program periodical forever. */
	(*out)->keep_mode = true;
	return r;
}
