/* A scenario's quality mode by name (quality_mode.h). */
#include "sim/scenario/quality_mode.h"

#include <string.h>

#include "core/quality_opt.h"

static const char *const mode_names[] = {
    "off", "djay", "djay-paper", "all-lo", "all-me", "all-hi", NULL};

const char *sim_quality_mode_name(enum sim_quality_mode m)
{
	return (unsigned)m < 6 ? mode_names[m] : "?";
}

bool sim_quality_set_mode(struct sim_scenario *sc, const char *name)
{
	int m = -1;
	for (int i = 0; mode_names[i]; i++)
		if (strcmp(name, mode_names[i]) == 0)
			m = i;
	if (m < 0)
		return false;
	struct core_params *p = &sc->params;
	sc->quality = (enum sim_quality_mode)m;
	p->quality_on = m == SIM_QUALITY_DJAY || m == SIM_QUALITY_DJAY_PAPER;
	p->quality_paper = m == SIM_QUALITY_DJAY_PAPER;
	struct quality_params d =
	    p->quality_paper ? quality_params_djay() : quality_params_default();
	p->quality.budget = d.budget;
	p->quality.strict = d.strict;
	p->quality.exact_reassign = d.exact_reassign;
	return true;
}
