/* GPU-time predictor for the pacing sleep (vGASA Sec. 3.2: the GPU time of
 * the frame being presented is not known yet, so it is predicted from the
 * recent frames, because adjacent frames change little).
 *
 * Median of the last CORE_PREDICTOR_WINDOW samples: one spike (a shader
 * compile, a scene load) moves the prediction not at all, a lasting change
 * moves it within half a window. Cheap enough for the shim's frame path:
 * no allocation, a sort of at most 7 doubles. */
#pragma once

#include <stdint.h>

#define CORE_PREDICTOR_WINDOW 7

/* Caller-allocated; a zeroed struct is an empty predictor. */
struct core_predictor {
	double v[CORE_PREDICTOR_WINDOW];
	uint32_t n;    /* samples held, <= CORE_PREDICTOR_WINDOW */
	uint32_t next; /* slot the next sample goes to */
};

void core_predictor_reset(struct core_predictor *p);
/* Negative and non-finite samples are ignored. */
void core_predictor_add(struct core_predictor *p, double sample);
/* Median of the held samples (mean of the two middle ones for an even
 * count); 0 when empty. */
double core_predictor_predict(const struct core_predictor *p);
