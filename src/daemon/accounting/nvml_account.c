/* NVML's worker thread and the tick's side of it (nvml_account.h). */
#include "daemon/accounting/nvml_account.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon/accounting/nvml_poll.h"
#include "daemon/gpus.h"
#include "util/log.h"

struct nvml_gpu {
	nvml_dev dev; /* NULL: not an NVML device */
	struct nvml_table table;
};

struct nvml_account {
	struct nvml_api api;
	struct nvml_bufs bufs; /* the poller's only */
	size_t n_gpus;
	struct nvml_gpu gpus[DAEMON_MAX_GPUS];
	pthread_mutex_t lock; /* the tables */
	pthread_cond_t wake;
	bool stop, threaded;
	int64_t period_ns;
	pthread_t thread;
};

/* Each NVML device whose UUID is one of the GPUs'; how many. */
static unsigned match_devices(struct nvml_account *a, const char (*uuids)[40])
{
	unsigned count = 0, found = 0;
	if (a->api.count(&count) != NVML_OK)
		return 0;
	for (unsigned i = 0; i < count; i++) {
		nvml_dev dev;
		char uuid[96] = "", norm[40];
		if (a->api.handle(i, &dev) != NVML_OK ||
		    a->api.uuid(dev, uuid, sizeof(uuid)) != NVML_OK)
			continue;
		daemon_gpus_uuid_norm(uuid, norm, sizeof(norm));
		for (size_t g = 0; g < a->n_gpus; g++)
			if (uuids[g][0] && strcmp(uuids[g], norm) == 0 &&
			    !a->gpus[g].dev) {
				a->gpus[g].dev = dev;
				found++;
				log_info("NVML counts the processes of GPU %zu "
				         "(%s)",
				         g, uuid);
			}
	}
	return found;
}

static int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void *poller_main(void *arg)
{
	struct nvml_account *a = arg;
	pthread_mutex_lock(&a->lock);
	while (!a->stop) {
		pthread_mutex_unlock(&a->lock);
		nvml_account_poll(a, mono_ns());
		pthread_mutex_lock(&a->lock);
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		int64_t ns = until.tv_nsec + a->period_ns;
		until.tv_sec += ns / 1000000000LL;
		until.tv_nsec = ns % 1000000000LL;
		while (!a->stop && pthread_cond_timedwait(&a->wake, &a->lock,
		                                          &until) != ETIMEDOUT)
			;
	}
	pthread_mutex_unlock(&a->lock);
	return NULL;
}

struct nvml_account *nvml_account_start(const char *lib_path,
                                        const char (*uuids)[40], size_t n_gpus,
                                        int64_t period_ns)
{
	struct nvml_account *a = calloc(1, sizeof(*a));
	if (!a)
		return NULL;
	a->n_gpus = n_gpus < DAEMON_MAX_GPUS ? n_gpus : DAEMON_MAX_GPUS;
	if (!nvml_api_open(&a->api, lib_path)) {
		free(a);
		return NULL;
	}
	if (match_devices(a, uuids) == 0) {
		nvml_api_close(&a->api);
		free(a);
		return NULL;
	}
	pthread_mutex_init(&a->lock, NULL);
	pthread_cond_init(&a->wake, NULL);
	a->period_ns = period_ns;
	if (period_ns > 0) {
		/* every signal blocked in the poller: batond takes its
		 * signals through a signalfd (server.h), which only works
		 * while no thread takes them */
		sigset_t all, old;
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		a->threaded =
		    pthread_create(&a->thread, NULL, poller_main, a) == 0;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		if (!a->threaded)
			log_warn("NVML: no thread to poll it: its per-process "
			         "figures are not read");
	}
	return a;
}

void nvml_account_stop(struct nvml_account *a)
{
	if (!a)
		return;
	if (a->threaded) {
		pthread_mutex_lock(&a->lock);
		a->stop = true;
		pthread_cond_signal(&a->wake);
		pthread_mutex_unlock(&a->lock);
		pthread_join(a->thread, NULL);
	}
	pthread_cond_destroy(&a->wake);
	pthread_mutex_destroy(&a->lock);
	nvml_bufs_free(&a->bufs);
	nvml_api_close(&a->api);
	free(a);
}

void nvml_account_poll(struct nvml_account *a, int64_t now_ns)
{
	for (size_t g = 0; g < a->n_gpus; g++) {
		struct nvml_gpu *n = &a->gpus[g];
		if (!n->dev)
			continue;
		/* only the poller writes last_seen_us: read without the lock */
		struct nvml_reading r;
		nvml_poll_device(&a->api, n->dev, n->table.last_seen_us,
		                 &a->bufs, &r);
		pthread_mutex_lock(&a->lock);
		if (r.mem_ok)
			nvml_table_memory(&n->table, r.mem, r.n_mem, now_ns);
		if (r.samples_ok)
			nvml_table_samples(&n->table, r.samples, r.n_samples,
			                   now_ns);
		n->table.has_util = r.util_ok;
		n->table.util = r.util;
		nvml_table_expire(&n->table, now_ns);
		pthread_mutex_unlock(&a->lock);
	}
}

bool nvml_account_pid(struct nvml_account *a, size_t gpu, pid_t pid,
                      uint64_t *busy_ns, uint64_t *used_bytes)
{
	if (!a || gpu >= a->n_gpus || !a->gpus[gpu].dev || pid <= 0)
		return false;
	pthread_mutex_lock(&a->lock);
	const struct nvml_pid *e =
	    nvml_table_find(&a->gpus[gpu].table, (uint32_t)pid);
	if (e) {
		*busy_ns = e->busy_ns;
		*used_bytes = e->used_bytes;
	}
	pthread_mutex_unlock(&a->lock);
	return e != NULL;
}

bool nvml_account_util(struct nvml_account *a, size_t gpu, double *util)
{
	if (!a || gpu >= a->n_gpus || !a->gpus[gpu].dev)
		return false;
	pthread_mutex_lock(&a->lock);
	bool ok = a->gpus[gpu].table.has_util;
	*util = a->gpus[gpu].table.util;
	pthread_mutex_unlock(&a->lock);
	return ok;
}

unsigned nvml_account_retries(struct nvml_account *a)
{
	return a ? a->bufs.retries : 0;
}

bool nvml_tenant_epoch(struct nvml_tenant *t, struct nvml_account *a,
                       size_t gpu, pid_t pid, double dt)
{
	uint64_t busy_ns, used;
	t->busy_s = 0.0;
	if (!nvml_account_pid(a, gpu, pid, &busy_ns, &used)) {
		*t = (struct nvml_tenant){.logged = t->logged};
		return false;
	}
	bool counted = t->based;
	/* an entry forgotten and seen again restarts at 0: the new base */
	if (t->based && busy_ns >= t->base_ns)
		t->carry_s += (double)(busy_ns - t->base_ns) * 1e-9;
	t->base_ns = busy_ns;
	t->based = true;
	t->used_bytes = used;
	/* one GPU gives a tenant at most the epoch; a backlog of more than
	 * two epochs is stale */
	t->busy_s = t->carry_s < dt ? t->carry_s : dt;
	t->carry_s -= t->busy_s;
	if (t->carry_s > 2.0 * dt)
		t->carry_s = 2.0 * dt;
	return counted;
}
