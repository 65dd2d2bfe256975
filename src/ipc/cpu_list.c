/* CPU lists as the kernel writes them (cpu_list.h). */
#include "ipc/cpu_list.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

bool ipc_cpu_list_parse(const char *list, cpu_set_t *out, char *why,
                        size_t whylen)
{
	CPU_ZERO(out);
	const char *p = list;
	while (*p) {
		char *end;
		if (!isdigit((unsigned char)*p))
			goto bad;
		errno = 0;
		unsigned long lo = strtoul(p, &end, 10), hi = lo;
		if (errno || end == p)
			goto bad;
		p = end;
		if (*p == '-') {
			p++;
			if (!isdigit((unsigned char)*p))
				goto bad;
			hi = strtoul(p, &end, 10);
			if (errno || end == p || hi < lo)
				goto bad;
			p = end;
		}
		if (hi >= CPU_SETSIZE) {
			snprintf(why, whylen, "CPU %lu is past the last (%d)",
			         hi, CPU_SETSIZE - 1);
			return false;
		}
		for (unsigned long c = lo; c <= hi; c++)
			CPU_SET(c, out);
		if (*p == ',')
			p++;
		else if (*p)
			goto bad;
	}
	if (CPU_COUNT(out) > 0)
		return true;
bad:
	snprintf(why, whylen, "\"%.60s\" is not a CPU list (like \"0-3,8\")",
	         list);
	return false;
}

void ipc_cpu_list_format(const cpu_set_t *set, char *out, size_t len)
{
	size_t at = 0;
	out[0] = '\0';
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, set) || (c > 0 && CPU_ISSET(c - 1, set)))
			continue;
		int e = c;
		while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, set))
			e++;
		int n = e == c ? snprintf(out + at, len - at, "%s%d",
		                          at ? "," : "", c)
		               : snprintf(out + at, len - at, "%s%d-%d",
		                          at ? "," : "", c, e);
		if (n < 0 || (size_t)n >= len - at)
			return; /* cut short: still a valid prefix */
		at += (size_t)n;
	}
}
