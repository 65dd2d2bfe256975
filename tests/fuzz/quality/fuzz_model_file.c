/* libFuzzer target for the models file reader (src/quality/model_file.c):
 * arbitrary bytes in, a model set or an error naming a field out, nothing
 * leaked, and whatever it accepts the writer's checks accept too. */
#include <stdint.h>
#include <string.h>

#include "quality/model_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct quality_model_set set;
	char err[256];
	if (quality_model_parse((const char *)data, size, "<fuzz>", 0, 0, &set,
	                        err, sizeof(err))) {
		/* accepted: every estimate is a number */
		double counts[CORE_QM_MAX_TYPES];
		for (size_t j = 0; j < CORE_QM_MAX_TYPES; j++)
			counts[j] = 1.0;
		for (size_t l = 0; l < set.n_levels; l++)
			(void)core_qm_cost(&set.level[l], counts);
	} else if (strncmp(err, "<fuzz>: ", 8) != 0) {
		__builtin_trap();
	}
	return 0;
}
