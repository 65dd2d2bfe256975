/* libFuzzer target: batond's reader of a tenant's /proc/PID/stat line
 * (daemon/tick/proc_cpu.c). The process names itself (PR_SET_NAME), so the
 * line's second field is hostile: spaces, parentheses and digits that
 * mimic the fields after it. Whatever the bytes, a parsed line gives a
 * CPU time that is a whole number of ticks and never negative. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/tick/proc_cpu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char line[1024];
	size_t n = size < sizeof(line) - 1 ? size : sizeof(line) - 1;
	memcpy(line, data, n);
	line[n] = '\0';
	int64_t ns;
	uint64_t start;
	if (proc_cpu_parse(line, 100, &ns, &start) &&
	    (ns < 0 || ns % 10000000 != 0))
		abort();
	return 0;
}
