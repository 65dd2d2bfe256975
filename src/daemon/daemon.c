/* The tenant registry and the status reply (daemon.h). */
#include "daemon/daemon.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/gate.h"
#include "core/reach.h"
#include "util/log.h"
#include "daemon/tick/target.h"
#include "daemon/quality/model_loader.h"

int64_t daemon_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* NVML's per-process accounting for the GPUs with a UUID, polled once
 * an epoch; NULL when none is an NVML device. */
static struct nvml_account *start_nvml(const struct daemon *d)
{
	char uuids[DAEMON_MAX_GPUS][40];
	bool any = false;
	for (size_t g = 0; g < d->n_gpus; g++) {
		snprintf(uuids[g], sizeof(uuids[g]), "%s", d->gpus[g].uuid);
		any |= uuids[g][0] != '\0';
	}
	if (!any)
		return NULL;
	return nvml_account_start(NULL, (const char(*)[40])uuids, d->n_gpus,
	                          (int64_t)d->cfg.epoch_ms * 1000000LL);
}

bool daemon_init(struct daemon *d, const struct daemon_config *cfg)
{
	*d = (struct daemon){0};
	d->cfg = *cfg;
	d->policy = cfg->policy;
	d->next_id = 1;
	d->harvest = cfg->harvest;
	char err[192];
	if (!daemon_gpus_setup(d->gpus, &d->n_gpus, cfg->gpus, cfg->n_gpus,
	                       NULL, NULL, err, sizeof(err))) {
		log_error("%s", err);
		daemon_finish(d);
		return false;
	}
	d->intervals = malloc(STATS_WINDOW * sizeof(*d->intervals));
	d->frames = malloc(BATON_RING_CAPACITY * sizeof(*d->frames));
	if (!d->intervals || !d->frames) {
		daemon_finish(d);
		return false;
	}
	d->models = model_loader_start(cfg->models_dir);
	d->nvml_video = nvml_video_open(NULL);
	d->nvml_acct = start_nvml(d);
	return true;
}

void daemon_finish(struct daemon *d)
{
	for (size_t i = 0; i < d->n_tenants; i++)
		tenant_destroy(d->tenants[i]);
	free(d->tenants);
	free(d->core);
	free(d->be_core);
	free(d->snap);
	free(d->be_snap);
	for (size_t g = 0; g < DAEMON_MAX_GPUS; g++)
		free(d->gpus[g].gpu.quality.workspace);
	free(d->intervals);
	free(d->frames);
	owner_map_free(&d->owners);
	model_loader_stop(d->models);
	nvml_video_close(d->nvml_video);
	nvml_account_stop(d->nvml_acct);
	*d = (struct daemon){0};
}

/* The tenants of process pid share its CPU time (tenant_seen.h): each
 * learns how many they are, after a registration or a departure. */
static void share_pid(struct daemon *d, pid_t pid)
{
	unsigned n = 0;
	for (size_t i = 0; i < d->n_tenants; i++)
		n += d->tenants[i]->pid == pid;
	for (size_t i = 0; i < d->n_tenants; i++)
		if (d->tenants[i]->pid == pid)
			d->tenants[i]->seen.same_pid = n;
}

/* The per-tick scratch arrays follow the registry's size, so a tick never
 * allocates. */
static bool grow(struct daemon *d, size_t want)
{
	if (want <= d->cap_tenants)
		return true;
	size_t cap = d->cap_tenants ? d->cap_tenants * 2 : 16;
	while (cap < want)
		cap *= 2;
	struct tenant **t = realloc(d->tenants, cap * sizeof(*t));
	if (!t)
		return false;
	d->tenants = t;
	struct core_tenant *c = realloc(d->core, cap * sizeof(*c));
	if (!c)
		return false;
	d->core = c;
	struct core_be_tenant *b = realloc(d->be_core, cap * sizeof(*b));
	if (!b)
		return false;
	d->be_core = b;
	struct metrics_tenant *s = realloc(d->snap, cap * sizeof(*s));
	if (!s)
		return false;
	d->snap = s;
	struct metrics_be *bs = realloc(d->be_snap, cap * sizeof(*bs));
	if (!bs)
		return false;
	d->be_snap = bs;
	/* Each GPU's quality stage's workspace (core/quality_stage.h),
	 * sized for every tenant on one GPU. */
	size_t qsz = core_quality_workspace_size(cap);
	for (size_t g = 0; g < d->n_gpus; g++) {
		struct core_quality_gpu *q = &d->gpus[g].gpu.quality;
		void *qw = realloc(q->workspace, qsz);
		if (!qw)
			return false;
		q->workspace = qw;
		q->workspace_size = qsz;
	}
	d->cap_tenants = cap;
	return true;
}

struct tenant *daemon_add_tenant(struct daemon *d, const char *name, pid_t pid,
                                 uid_t uid, double sla_fps, double fixed_fps,
                                 struct ipc_shm *shm, int64_t now_ns)
{
	if (!grow(d, d->n_tenants + 1))
		return NULL;
	struct tenant *t = tenant_create(d->next_id, name, pid, uid, sla_fps,
	                                 fixed_fps, shm, now_ns);
	if (!t)
		return NULL;
	t->owner = owner_of(&d->owners, uid);
	t->registered_tick = d->ticks;
	d->next_id++;
	d->tenants[d->n_tenants++] = t;
	tenant_seen_open(&t->seen, d->proc_root, pid, now_ns);
	share_pid(d, pid);
	d->gpus[0].n_tenants++; /* until daemon_tenant_to_gpu moves it */
	const struct daemon_app *app = daemon_config_app(&d->cfg, name);
	if (app) {
		t->cap = app->cap;
		t->work_conserving = app->has_wc && app->work_conserving;
	}
	/* Before the welcome goes out: the shim paces from its next frame,
	 * not from the next tick (up to an epoch of free running, and the
	 * first frames of a game are often its fastest). */
	t->core.target_fps = daemon_start_target(d, t);
	daemon_write_target(t, d->ticks, d->gpus[t->gpu].space.split);
	log_info("tenant %llu \"%s\" pid %d uid %u registered (sla %g, "
	         "fixed %g), starts at %g FPS",
	         (unsigned long long)t->id, t->name, (int)pid, (unsigned)uid,
	         sla_fps, fixed_fps, t->core.target_fps);
	return t;
}

struct tenant *daemon_add_be_tenant(struct daemon *d, const char *name,
                                    pid_t pid, uid_t uid, double weight,
                                    double cap, struct ipc_shm *shm,
                                    int64_t now_ns)
{
	if (!grow(d, d->n_tenants + 1))
		return NULL;
	struct tenant *t =
	    tenant_create(d->next_id, name, pid, uid, 0.0, 0.0, shm, now_ns);
	if (!t)
		return NULL;
	t->owner = owner_of(&d->owners, uid);
	d->next_id++;
	d->tenants[d->n_tenants++] = t;
	tenant_seen_open(&t->seen, d->proc_root, pid, now_ns);
	share_pid(d, pid);
	d->n_be++;
	d->gpus[0].n_be++; /* until daemon_tenant_to_gpu moves it */
	t->be = true;
	t->be_state.weight = weight > 0.0 ? weight : 1.0;
	t->be_state.last_ns = now_ns;
	t->be_state.registered_ns = now_ns;
	t->cap = cap > 0.0 && cap <= 1.0 ? cap : 0.0;
	/* An app entry's cap binds a best-effort tenant of that name too
	 * (lowered, never raised, as for a game's hello). */
	const struct daemon_app *app = daemon_config_app(&d->cfg, name);
	if (app)
		t->cap = core_gate_cap_tighter(t->cap, app->cap);
	/* VALID, no budget, no window: it waits for the first tick. */
	daemon_write_be(d, t);
	log_info("best-effort tenant %llu \"%s\" pid %d uid %u registered "
	         "(weight %g, cap %g)",
	         (unsigned long long)t->id, t->name, (int)pid, (unsigned)uid,
	         t->be_state.weight, t->cap);
	return t;
}

bool daemon_load_owners(struct daemon *d)
{
	bool ok = owner_map_load(&d->owners, d->cfg.subuid_path);
	for (size_t i = 0; i < d->n_tenants; i++)
		d->tenants[i]->owner = owner_of(&d->owners, d->tenants[i]->uid);
	return ok;
}

void daemon_remove_tenant(struct daemon *d, struct tenant *t)
{
	for (size_t i = 0; i < d->n_tenants; i++) {
		if (d->tenants[i] != t)
			continue;
		/* Keep registration order: status lists tenants stably. */
		memmove(&d->tenants[i], &d->tenants[i + 1],
		        (d->n_tenants - i - 1) * sizeof(*d->tenants));
		d->n_tenants--;
		log_info("tenant %llu \"%s\" pid %d gone",
		         (unsigned long long)t->id, t->name, (int)t->pid);
		/* Its dynamic cap returns to the pool now, and the quiet
		 * count restarts (caps.h). A best-effort tenant was never in
		 * the capacity stage: the next tick splits its budget among
		 * the others. */
		struct daemon_gpu *dg = &d->gpus[t->gpu];
		if (t->be)
			d->n_be--, dg->n_be--;
		else
			core_caps_depart(&dg->gpu, &t->core), dg->n_tenants--;
		share_pid(d, t->pid);
		tenant_destroy(t);
		return;
	}
}

void daemon_tenant_to_gpu(struct daemon *d, struct tenant *t, unsigned g)
{
	if (g >= d->n_gpus)
		g = 0;
	struct daemon_gpu *dg = &d->gpus[t->gpu];
	*(t->be ? &dg->n_be : &dg->n_tenants) -= 1;
	t->gpu = g;
	dg = &d->gpus[g];
	*(t->be ? &dg->n_be : &dg->n_tenants) += 1;
	if (d->n_gpus > 1)
		log_info("tenant %llu \"%s\" on %s", (unsigned long long)t->id,
		         t->name, dg->name);
}

void daemon_tenant_move(struct daemon *d, struct tenant *t, unsigned g)
{
	if (g >= d->n_gpus || g == t->gpu)
		return;
	/* d->ticks counts the ticks done: unchanged since its
	 * registration, no controller has seen it yet */
	if (!t->be && d->ticks != t->registered_tick)
		core_caps_depart(&d->gpus[t->gpu].gpu, &t->core);
	daemon_tenant_to_gpu(d, t, g);
}

void daemon_tenant_hello_cap(struct tenant *t, double cap)
{
	if (cap <= 1.0) /* NaN and caps above one GPU are none */
		t->cap = core_gate_cap_tighter(t->cap, cap);
}

double daemon_tenant_sla(const struct daemon *d, const struct tenant *t)
{
	return t->sla_fps > 0.0 ? t->sla_fps : d->cfg.default_sla;
}

double daemon_start_target(const struct daemon *d, const struct tenant *t)
{
	if (t->fixed_fps > 0.0)
		return t->fixed_fps;
	if (d->policy == &core_policy_none)
		return 0.0;
	struct core_tenant c = {.sla_fps = daemon_tenant_sla(d, t)};
	return core_sla_ref(&d->cfg.params, &c);
}
