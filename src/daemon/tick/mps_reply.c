/* get_server_list's reply (mps_reply.h). */
#include "daemon/tick/mps_reply.h"

#include <limits.h>
#include <stdbool.h>

/* One line [s, e): a pid in *pid, or false. Spaces around it are
 * allowed (the tool's own output has none, a terminal's may). */
static bool parse_pid(const char *s, const char *e, pid_t *pid)
{
	while (s < e && (*s == ' ' || *s == '\t' || *s == '\r'))
		s++;
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		e--;
	if (s == e)
		return false;
	long long v = 0;
	for (; s < e; s++) {
		if (*s < '0' || *s > '9')
			return false;
		v = v * 10 + (*s - '0');
		if (v > INT_MAX)
			return false;
	}
	if (v <= 0)
		return false;
	*pid = (pid_t)v;
	return true;
}

size_t daemon_mps_servers(const char *text, size_t len, pid_t *pids, size_t max,
                          size_t *bad)
{
	size_t n = 0;
	*bad = 0;
	const char *end = text + len;
	for (const char *s = text; s < end;) {
		const char *e = s;
		while (e < end && *e != '\n')
			e++;
		pid_t pid;
		if (e > s) {
			if (n < max && parse_pid(s, e, &pid))
				pids[n++] = pid;
			else
				(*bad)++;
		}
		s = e < end ? e + 1 : end;
	}
	return n;
}
