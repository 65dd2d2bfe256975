#include "ipc/vram_size.h"

#include <string.h>

/* Past any GPU's memory by orders of magnitude, and far enough from
 * UINT64_MAX that the layer's sums of sizes cannot wrap. */
#define SIZE_MAX_BYTES ((uint64_t)1 << 62)

/* The unit's multiplier, 0 for an unknown unit. */
static uint64_t unit_of(const char *u)
{
	static const char units[] = "KMGT";
	if (!*u)
		return 1;
	const char *p = strchr(units, *u);
	if (!p || (u[1] && strcmp(u + 1, "iB") != 0))
		return 0;
	return (uint64_t)1 << (10 * (p - units + 1));
}

bool vram_size_parse(const char *s, uint64_t *out)
{
	/* By hand rather than strtod or strtoull: no sign, no spaces, no
	 * hex, and no locale (a game may have called setlocale). */
	if (!s || *s < '0' || *s > '9')
		return false;
	uint64_t whole = 0;
	for (; *s >= '0' && *s <= '9'; s++) {
		whole = whole * 10 + (uint64_t)(*s - '0');
		if (whole > SIZE_MAX_BYTES)
			return false;
	}
	/* The fraction in millionths: enough for "1.5G" or "0.25T". */
	uint64_t frac = 0, scale = 1000000;
	if (*s == '.') {
		s++;
		if (*s < '0' || *s > '9')
			return false;
		for (; *s >= '0' && *s <= '9'; s++) {
			scale /= 10;
			frac += (uint64_t)(*s - '0') * scale;
		}
	}
	uint64_t unit = unit_of(s);
	if (unit == 0 || whole > SIZE_MAX_BYTES / unit)
		return false;
	uint64_t bytes = whole * unit + frac * unit / 1000000;
	if (bytes == 0 || bytes > SIZE_MAX_BYTES)
		return false;
	*out = bytes;
	return true;
}
