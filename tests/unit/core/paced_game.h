/* A paced game as the harvesting stage sees it, for the slot's and the
 * phase steering's tests (test_harvest_slot.c, test_harvest_phase.c). */
#pragma once

#include "core/policy.h"

/* A game paced at fps, k s of GPU per frame, waiting `wait` s per frame
 * (10 frames last epoch), its last Present at present. */
static inline struct core_tenant paced_game(double fps, double k, double wait,
                                            double present)
{
	return (struct core_tenant){.sla_fps = 30,
	                            .target_fps = fps,
	                            .k = k,
	                            .frames = 10,
	                            .sleep_s = 10 * wait,
	                            .present_s = present};
}
