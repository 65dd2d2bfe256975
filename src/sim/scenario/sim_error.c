/* Formatting a scenario error (sim_error.h). */
#include "sim/scenario/sim_error.h"

#include <stdio.h>

void sim_error_format(const struct sim_error *err, char *buf, size_t len)
{
	size_t used = 0;

	if (len == 0)
		return;
	buf[0] = '\0';
#define APPEND(...)                                                            \
	do {                                                                   \
		if (used < len) {                                              \
			int n = snprintf(buf + used, len - used, __VA_ARGS__); \
			if (n > 0)                                             \
				used += (size_t)n;                             \
		}                                                              \
	} while (0)
	if (err->file[0]) {
		APPEND("%s", err->file);
		if (err->line > 0)
			APPEND(":%d", err->line);
		APPEND(": ");
	}
	if (err->field[0])
		APPEND("%s: ", err->field);
	APPEND("%s", err->msg[0] ? err->msg : "invalid scenario");
#undef APPEND
}
