#include "daemon/host_load.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

void host_load_init(struct host_load *h, const char *path)
{
	*h = (struct host_load){.path = path ? path : "/proc/stat"};
}

bool host_load_parse(const char *line, uint64_t *busy, uint64_t *total)
{
	/* user nice system idle iowait irq softirq steal guest guest_nice
	 * (proc(5)); guest time is already inside user and nice. Kernels
	 * before 2.6.33 stop after steal or earlier: what is missing is 0. */
	uint64_t v[8] = {0};
	if (strncmp(line, "cpu ", 4) != 0)
		return false;
	int n = sscanf(line + 4,
	               "%" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
	               " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64,
	               &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
	if (n < 4)
		return false;
	uint64_t idle = v[3] + v[4];
	uint64_t b = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
	*busy = b;
	*total = b + idle;
	return true;
}

bool host_load_sample(struct host_load *h, double *busy_fraction)
{
	char line[512];
	FILE *f = fopen(h->path, "re");
	if (!f)
		return false;
	bool ok = fgets(line, sizeof(line), f) != NULL;
	fclose(f);
	uint64_t busy, total;
	if (!ok || !host_load_parse(line, &busy, &total))
		return false;
	bool primed = h->primed;
	uint64_t old_busy = h->busy, old_total = h->total;
	h->busy = busy;
	h->total = total;
	h->primed = true;
	/* Counters only grow; anything else is a new boot of the numbers
	 * (a test's file, a checkpoint restore): start over from here. */
	if (!primed || total <= old_total || busy < old_busy ||
	    busy - old_busy > total - old_total)
		return false;
	uint64_t db = busy - old_busy, dt = total - old_total;
	*busy_fraction = (double)db / (double)dt;
	return true;
}
