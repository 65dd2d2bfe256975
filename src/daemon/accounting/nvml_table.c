/* NVML's samples into per-process counters (nvml_table.h). */
#include "daemon/accounting/nvml_table.h"

#include <stdlib.h>

const struct nvml_pid *nvml_table_find(const struct nvml_table *t, uint32_t pid)
{
	for (unsigned i = 0; i < t->n; i++)
		if (t->pids[i].pid == pid)
			return &t->pids[i];
	return NULL;
}

/* pid's entry, added if new; when the table is full, the entry named
 * longest ago makes room. */
static struct nvml_pid *entry(struct nvml_table *t, uint32_t pid)
{
	struct nvml_pid *e = (struct nvml_pid *)nvml_table_find(t, pid);
	if (e)
		return e;
	if (t->n < NVML_TABLE_MAX_PIDS) {
		e = &t->pids[t->n++];
	} else {
		e = &t->pids[0];
		for (unsigned i = 1; i < t->n; i++)
			if (t->pids[i].seen_ns < e->seen_ns)
				e = &t->pids[i];
	}
	*e = (struct nvml_pid){.pid = pid};
	return e;
}

static int by_time(const void *a, const void *b)
{
	uint64_t x = ((const struct nvml_sample *)a)->ts_us;
	uint64_t y = ((const struct nvml_sample *)b)->ts_us;
	return (x > y) - (x < y);
}

void nvml_table_samples(struct nvml_table *t, struct nvml_sample *s, unsigned n,
                        int64_t now_ns)
{
	t->sampled = true;
	if (n == 0)
		return;
	qsort(s, n, sizeof(*s), by_time);
	uint64_t newest = s[n - 1].ts_us;
	if (t->last_seen_us == 0) {
		/* the base: samples of unknown age count nothing */
		t->last_seen_us = newest;
		for (unsigned i = 0; i < n; i++)
			entry(t, s[i].pid)->seen_ns = now_ns;
		return;
	}
	uint64_t prev = t->last_seen_us, at = t->last_seen_us;
	for (unsigned i = 0; i < n; i++) {
		if (s[i].ts_us <= t->last_seen_us)
			continue; /* not newer than asked: already counted */
		if (s[i].ts_us != at) {
			prev = at; /* the instant before this one */
			at = s[i].ts_us;
		}
		uint64_t period = at - prev;
		if (t->period_us == 0 || period < t->period_us)
			t->period_us = period;
		if (period > t->period_us)
			period = t->period_us; /* idle instants between */
		if (period > NVML_TABLE_MAX_PERIOD_US)
			period = NVML_TABLE_MAX_PERIOD_US;
		unsigned sm = s[i].sm < 100 ? s[i].sm : 100;
		struct nvml_pid *e = entry(t, s[i].pid);
		e->busy_ns += period * 1000ULL * sm / 100;
		e->seen_ns = now_ns;
	}
	if (newest > t->last_seen_us)
		t->last_seen_us = newest;
}

void nvml_table_memory(struct nvml_table *t, const struct nvml_proc_mem *m,
                       unsigned n, int64_t now_ns)
{
	/* this list's figures replace the last's */
	for (unsigned i = 0; i < t->n; i++)
		t->pids[i].used_bytes = 0;
	for (unsigned i = 0; i < n; i++) {
		struct nvml_pid *e = entry(t, m[i].pid);
		if (m[i].used_bytes > e->used_bytes)
			e->used_bytes = m[i].used_bytes;
		e->seen_ns = now_ns;
	}
}

void nvml_table_expire(struct nvml_table *t, int64_t now_ns)
{
	unsigned k = 0;
	for (unsigned i = 0; i < t->n; i++)
		if (now_ns - t->pids[i].seen_ns <= NVML_TABLE_KEEP_NS)
			t->pids[k++] = t->pids[i];
	t->n = k;
}
