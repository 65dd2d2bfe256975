/* What the publisher tells each target, decided from the control loop's
 * numbers: a pure function, unit-tested. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/* What one target (Agones, Kubernetes) is told: sessions running and the
 * capacity, sessions + what core_caps_admit admits of its profile. */
struct publish_numbers {
	int64_t count;
	int64_t capacity;
};

/* The loop's view each tick, for one profile. */
struct publish_input {
	bool valid; /* false: no tick yet, or the profile is unknown */
	uint32_t sessions;
	bool fits;
	uint32_t more;
	bool severe; /* core_caps_gpu.severe */
};

/* count = sessions; capacity = count + more when it fits, else count:
 * on overload (severe, or admission refused) no new session may be
 * allocated here (docs/capacity.md). */
struct publish_numbers publish_decide(const struct publish_input *in);
