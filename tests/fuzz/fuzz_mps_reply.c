/* libFuzzer target: batond's reader of the MPS control tool's
 * get_server_list reply (daemon/tick/mps_reply.c). Whatever the bytes, every
 * pid parsed is positive, no more are written than asked for, and each
 * line is a pid or counted bad. */
#include <stdint.h>
#include <stdlib.h>

#include "daemon/tick/mps_reply.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	pid_t pids[5];
	pids[4] = -7; /* a guard past the 4 asked for */
	size_t bad;
	size_t n = daemon_mps_servers((const char *)data, size, pids, 4, &bad);
	if (n > 4 || pids[4] != -7 || n + bad > size)
		abort();
	for (size_t i = 0; i < n; i++)
		if (pids[i] <= 0)
			abort();
	return 0;
}
