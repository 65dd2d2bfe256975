/* libFuzzer target for baton profile's frames.csv reader
 * (src/quality/profile_csv.c): arbitrary bytes in; either a table whose
 * every field is in range, or an error naming the file, and nothing
 * leaked either way. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "quality/profile_csv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct profile_csv c;
	char err[256];
	if (!profile_csv_parse((const char *)data, size, "<fuzz>", &c, err,
	                       sizeof(err))) {
		if (strncmp(err, "<fuzz>:", 7) != 0 || c.frame)
			__builtin_trap();
		return 0;
	}
	if (c.rows == 0 || c.n_types == 0 || c.n_types > CORE_QM_MAX_TYPES ||
	    c.n_areas > PROFILE_CSV_MAX_AREAS || (c.has_area && !c.n_areas))
		__builtin_trap();
	for (size_t i = 0; i < c.rows; i++) {
		if ((i > 0 && c.frame[i] <= c.frame[i - 1]) ||
		    !isfinite(c.cost_s[i]) || c.cost_s[i] < 0.0 ||
		    (c.has_area && c.area_of[i] >= c.n_areas))
			__builtin_trap();
		for (size_t j = 0; j < c.n_types; j++) {
			double v = c.counts[i * c.n_types + j];
			if (!isfinite(v) || v < 0.0)
				__builtin_trap();
		}
	}
	profile_csv_free(&c);
	return 0;
}
