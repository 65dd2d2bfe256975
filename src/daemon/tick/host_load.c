#include "daemon/tick/host_load.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

void host_load_init(struct host_load *h, const char *path)
{
	*h = (struct host_load){.path = path ? path : "/proc/stat"};
}

void host_load_set_cpus(struct host_load *h, const cpu_set_t *cpus)
{
	h->has_cpus = true;
	h->cpus = *cpus;
	h->primed = false;
}

/* The jiffies of one line after its "cpu" or "cpuN" label. */
static bool parse_fields(const char *fields, uint64_t *busy, uint64_t *total)
{
	uint64_t v[8] = {0};
	int n = sscanf(fields,
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

bool host_load_parse(const char *line, uint64_t *busy, uint64_t *total)
{
	/* user nice system idle iowait irq softirq steal guest guest_nice
	 * (proc(5)); guest time is already inside user and nice. Kernels
	 * before 2.6.33 stop after steal or earlier: what is missing is 0. */
	if (strncmp(line, "cpu ", 4) != 0)
		return false;
	return parse_fields(line + 4, busy, total);
}

/* The sum of the "cpuN" lines of the CPUs in h->cpus; false if none of
 * them is there. */
static bool read_cpus(const struct host_load *h, FILE *f, uint64_t *busy,
                      uint64_t *total)
{
	char line[512];
	bool any = false;
	*busy = *total = 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned cpu;
		int at = 0;
		if (strncmp(line, "cpu", 3) != 0 ||
		    sscanf(line + 3, "%u%n", &cpu, &at) != 1 ||
		    cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &h->cpus))
			continue;
		uint64_t b, t;
		if (!parse_fields(line + 3 + at, &b, &t))
			continue;
		*busy += b;
		*total += t;
		any = true;
	}
	return any;
}

bool host_load_sample(struct host_load *h, double *busy_fraction)
{
	char line[512];
	FILE *f = fopen(h->path, "re");
	if (!f)
		return false;
	uint64_t busy, total;
	bool ok = h->has_cpus ? read_cpus(h, f, &busy, &total)
	                      : fgets(line, sizeof(line), f) != NULL &&
	                            host_load_parse(line, &busy, &total);
	fclose(f);
	if (!ok)
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
