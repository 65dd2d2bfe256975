/* A tenant's epoch of kernel-counted GPU time (gpu_account.h). */
#include "daemon/accounting/gpu_account.h"

#include <string.h>

/* Growth of a counter that only grows; 0 when it went backwards or
 * wrapped (the new value is then the base). */
static uint64_t grown(uint64_t now, uint64_t before)
{
	return now >= before ? now - before : 0;
}

static const struct gpu_client *base_of(const struct gpu_account *a,
                                        const struct gpu_client *c)
{
	for (unsigned i = 0; i < a->n_clients; i++)
		if (a->clients[i].id == c->id &&
		    strcmp(a->clients[i].pdev, c->pdev) == 0)
			return &a->clients[i];
	return NULL;
}

/* xe's busy cycles over its engines' clock since the base, summed over
 * the render classes: a share of the epoch. */
static double cycles_share(const struct gpu_client *c,
                           const struct gpu_client *b)
{
	double share = 0.0;
	for (unsigned i = 0; i < c->n_cycles; i++)
		for (unsigned j = 0; j < b->n_cycles; j++) {
			const struct gpu_cycles *y = &c->cycles[i];
			const struct gpu_cycles *x = &b->cycles[j];
			uint64_t total = grown(y->total, x->total);
			if (strcmp(y->engine, x->engine) != 0 || total == 0)
				continue;
			double r =
			    (double)grown(y->cycles, x->cycles) / (double)total;
			share += r < 1.0 ? r : 1.0;
		}
	return share;
}

/* The clients' time since the base, in s, over an epoch of dt: their
 * busy ns, and xe's busy cycles over its total cycles as a share of dt.
 * A client without a base (new since the last read) counts 0. */
static void count(struct gpu_account *a, const struct gpu_client *now,
                  unsigned n, double dt)
{
	double busy = 0.0, video = 0.0;
	uint64_t resident = 0;
	for (unsigned i = 0; i < n; i++) {
		const struct gpu_client *c = &now[i];
		resident = c->resident_bytes > UINT64_MAX - resident
		               ? UINT64_MAX
		               : resident + c->resident_bytes;
		const struct gpu_client *b = a->based ? base_of(a, c) : NULL;
		if (!b)
			continue;
		busy += (double)grown(c->render_ns, b->render_ns) * 1e-9;
		video += (double)grown(c->video_ns, b->video_ns) * 1e-9;
		busy += cycles_share(c, b) * dt;
	}
	/* one GPU gives a tenant at most the epoch */
	a->busy_s = busy < dt ? busy : dt;
	a->video_s = video < dt ? video : dt;
	a->resident_bytes = resident;
}

static void rescan(struct gpu_account *a, const struct gpu_account_who *w,
                   int64_t now_ns, unsigned *scans_left)
{
	bool due = a->scanned_ns == 0 ||
	           now_ns - a->scanned_ns >= GPU_ACCOUNT_RESCAN_NS;
	if (!due || *scans_left == 0)
		return;
	(*scans_left)--;
	a->state = gpu_account_scan(a, w);
	a->scanned_ns = now_ns;
}

bool gpu_account_epoch(struct gpu_account *a, const struct gpu_account_who *w,
                       int64_t now_ns, double dt, unsigned *scans_left)
{
	struct gpu_client now[GPU_ACCOUNT_MAX_CLIENTS];
	unsigned n = 0;
	a->busy_s = a->video_s = 0.0;
	rescan(a, w, now_ns, scans_left);
	if (a->state == GPU_ACCOUNT_OK || a->state == GPU_ACCOUNT_NONE)
		a->state = a->n_fds > 0
		               ? gpu_account_read(w, a->fds, a->n_fds, now,
		                                  GPU_ACCOUNT_MAX_CLIENTS, &n)
		               : GPU_ACCOUNT_NONE;
	if (a->state != GPU_ACCOUNT_OK) {
		/* nothing counted; a scan may find clients again */
		a->based = false;
		a->n_clients = 0;
		a->resident_bytes = 0;
		return false;
	}
	count(a, now, n, dt);
	/* until the next scan, one fd per client */
	for (unsigned i = 0; i < n; i++)
		a->fds[i] = now[i].fd;
	a->n_fds = n;
	bool counted = a->based;
	memcpy(a->clients, now, n * sizeof(now[0]));
	a->n_clients = n;
	a->based = true;
	return counted;
}

void gpu_account_keep_pdev(struct gpu_account *a, const char *pdev)
{
	unsigned k = 0;
	uint64_t resident = 0;
	for (unsigned i = 0; i < a->n_clients; i++) {
		const struct gpu_client *c = &a->clients[i];
		if (pdev[0] && strcmp(c->pdev, pdev) != 0)
			continue;
		resident = c->resident_bytes > UINT64_MAX - resident
		               ? UINT64_MAX
		               : resident + c->resident_bytes;
		a->fds[k] = c->fd;
		a->clients[k++] = *c;
	}
	a->n_clients = a->n_fds = k;
	a->resident_bytes = resident;
	if (k == 0) {
		a->based = false;
		a->state = GPU_ACCOUNT_NONE;
	}
}

const char *gpu_source_name(enum gpu_source s)
{
	switch (s) {
	case GPU_SOURCE_FDINFO:
		return "fdinfo";
	case GPU_SOURCE_CPU:
		return "cpu";
	case GPU_SOURCE_NVML:
		return "nvml";
	case GPU_SOURCE_SHIM:
		break;
	}
	return "shim";
}
