/* A scenario's gpu group: the GPU model and its time constants. */
#include "sim/scenario/scenario_parse.h"

bool sim_scenario_parse_gpu(struct sim_cfg_ctx *c, const config_setting_t *root,
                            struct sim_scenario *sc)
{
	static const char *const known[] = {
	    "model", "quantum_ms", "switch_us", "slot_ms", "period_ms", NULL};
	static const char *const models[] = {"timeslice", "fcfs", "budget",
	                                     NULL};
	config_setting_t *g;

	sc->gpu.model = SIM_GPU_TIMESLICE;
	sc->gpu.quantum_ms = 1.0;
	sc->gpu.switch_us = 50.0;
	sc->gpu.slot_ms = 100.0;    /* gOver Sec. 3.4 */
	sc->gpu.period_ms = 1000.0; /* gOver Sec. 3.2 */
	if (!sim_cfg_group(c, root, "gpu", &g))
		return false;
	if (!g)
		return true;
	int model = (int)sc->gpu.model;
	if (!sim_cfg_check_known(c, g, known) ||
	    !sim_cfg_enum(c, g, "model", models, &model) ||
	    !sim_cfg_num(c, g, "quantum_ms", &sc->gpu.quantum_ms, 0, 1000,
	                 NUM_LO_OPEN) ||
	    !sim_cfg_num(c, g, "switch_us", &sc->gpu.switch_us, 0, 1e6, 0) ||
	    !sim_cfg_num(c, g, "slot_ms", &sc->gpu.slot_ms, 0, 60000,
	                 NUM_LO_OPEN) ||
	    !sim_cfg_num(c, g, "period_ms", &sc->gpu.period_ms, 0, 600000,
	                 NUM_LO_OPEN))
		return false;
	if (sc->gpu.period_ms < sc->gpu.slot_ms)
		return sim_cfg_fail(c, g, "period_ms",
		                    "%g must be at least slot_ms (%g)",
		                    sc->gpu.period_ms, sc->gpu.slot_ms);
	sc->gpu.model = (enum sim_gpu_model)model;
	return true;
}
