/* The encoder and VRAM each epoch, and the admission that counts them
 * (tick_res.h). */
#include "daemon/tick/tick_res.h"

#include <math.h>
#include <string.h>

#include "core/caps.h"
#include "daemon/accounting/nvml_video.h"
#include "daemon/daemon.h"

#define NS_PER_S 1000000000LL
#define MIB      (1024.0 * 1024.0)
/* A tenant's video share is smoothed over about a second, as its GPU
 * share is: an encoder's busy time comes in bursts, one per frame. */
#define VIDEO_SMOOTH_S 1.0

/* The NVML device of GPU dg, by UUID; NULL when none. */
static const struct nvml_video_gpu *
nvml_of(const struct daemon_gpu *dg, const struct nvml_video_gpu *all, size_t n)
{
	for (size_t i = 0; i < n && dg->uuid[0]; i++) {
		char norm[40];
		daemon_gpus_uuid_norm(all[i].uuid, norm, sizeof(norm));
		if (strcmp(norm, dg->uuid) == 0)
			return &all[i];
	}
	return NULL;
}

/* t's share of its GPU's encoder by NVML: the device's utilization
 * split over the encoder sessions by their pixel rate (NVML gives no
 * per-process encoder time); -1 when t has no session. */
static double nvml_share(const struct nvml_video_gpu *nv, pid_t pid)
{
	double mine = 0.0, all = 0.0;
	bool has = false;
	for (unsigned i = 0; i < nv->n_sessions; i++) {
		all += nv->sessions[i].pixels_per_s;
		if (nv->sessions[i].pid == pid) {
			mine += nv->sessions[i].pixels_per_s;
			has = true;
		}
	}
	if (!has)
		return -1.0;
	return all > 0.0 ? nv->encoder_util * mine / all : 0.0;
}

/* Each game's video share and VRAM: its DRM clients' where the kernel
 * counts them, else its NVML encoder sessions'; the sums per GPU. */
static void tenants_res(struct daemon *d, const struct nvml_video_gpu **nv,
                        double dt, double *video, uint64_t *vram, bool *counted)
{
	double a = 1.0 - exp(-dt / VIDEO_SMOOTH_S);
	for (size_t i = 0; i < d->n_tenants; i++) {
		struct tenant *t = d->tenants[i];
		if (t->corrupt || t->be)
			continue;
		size_t g = t->gpu < d->n_gpus ? t->gpu : 0;
		struct gpu_res_tenant *r = &t->res;
		double share = -1.0;
		if (t->acct.state == GPU_ACCOUNT_OK) {
			share = t->acct.video_s / dt;
			r->vram_bytes = t->acct.resident_bytes;
			counted[g] = true;
		} else {
			r->vram_bytes = 0;
		}
		if (nv[g] && nv[g]->has_encoder && share <= 0.0) {
			double s = nvml_share(nv[g], t->pid);
			share = s >= 0.0 ? s : share;
		}
		if (share < 0.0)
			share = 0.0;
		r->video_share += a * (share - r->video_share);
		video[g] += r->video_share;
		vram[g] += r->vram_bytes;
	}
}

static void gpu_encoder(struct gpu_res *r, const struct nvml_video_gpu *nv,
                        double video, bool counted)
{
	r->has_decoder = nv && nv->has_decoder;
	r->decoder_util = r->has_decoder ? nv->decoder_util : 0.0;
	if (nv && nv->has_encoder) {
		r->encoder_util = nv->encoder_util;
		r->encoder_source = "nvml";
	} else if (counted) {
		r->encoder_util = video < 1.0 ? video : 1.0;
		r->encoder_source = "fdinfo";
	} else {
		r->encoder_util = 0.0;
		r->encoder_source = "none";
	}
	r->core.has_encoder = strcmp(r->encoder_source, "none") != 0;
	r->core.encoder_load = r->encoder_util;
}

static void gpu_vram(const struct daemon *d, const struct daemon_gpu *dg,
                     struct gpu_res *r, const struct nvml_video_gpu *nv,
                     uint64_t tenants)
{
	uint64_t total, used;
	double conf = 0.0;
	for (size_t k = 0; k < d->cfg.n_gpus; k++)
		if (strcmp(d->cfg.gpus[k].name, dg->name) == 0)
			conf = d->cfg.gpus[k].vram_mb;
	if (nv && nv->has_memory) {
		r->core.vram_total = nv->memory_total;
		r->core.vram_used = nv->memory_used;
		r->vram_source = "nvml";
	} else if (gpu_res_sysfs_vram(d->sysfs_root, dg->pci, &total, &used)) {
		r->core.vram_total = total;
		r->core.vram_used = used;
		r->vram_source = "sysfs";
	} else if (conf > 0.0) {
		r->core.vram_total = (uint64_t)(conf * MIB);
		r->core.vram_used = tenants;
		r->vram_source = "config";
	} else {
		r->core.vram_total = 0;
		r->core.vram_used = tenants;
		r->vram_source = "none";
	}
}

void daemon_res_tick(struct daemon *d, int64_t now_ns, double dt)
{
	const struct nvml_video_gpu *nv[DAEMON_MAX_GPUS] = {0};
	if (d->nvml_video &&
	    (d->nvml_read_ns == 0 || now_ns - d->nvml_read_ns >= NS_PER_S)) {
		d->n_nvml =
		    nvml_video_read(d->nvml_video, d->nvml, DAEMON_MAX_GPUS);
		d->nvml_read_ns = now_ns;
	}
	for (size_t g = 0; g < d->n_gpus; g++)
		nv[g] = nvml_of(&d->gpus[g], d->nvml, d->n_nvml);
	double video[DAEMON_MAX_GPUS] = {0};
	uint64_t vram[DAEMON_MAX_GPUS] = {0};
	bool counted[DAEMON_MAX_GPUS] = {0};
	tenants_res(d, nv, dt, video, vram, counted);
	for (size_t g = 0; g < d->n_gpus; g++) {
		struct gpu_res *r = &d->gpus[g].res;
		gpu_encoder(r, nv[g], video[g], counted[g]);
		gpu_vram(d, &d->gpus[g], r, nv[g], vram[g]);
	}
}

struct core_res_need daemon_app_need(const struct daemon_app *a)
{
	return (struct core_res_need){
	    .encoder = a->encoder,
	    .vram_bytes = (uint64_t)(a->vram_mb * MIB),
	};
}

struct core_admit daemon_gpu_admit(const struct daemon *d, size_t g,
                                   double cost_s, double sla_fps,
                                   const struct core_res_need *need)
{
	struct core_admit a =
	    core_caps_admit(&d->cfg.params, &d->gpus[g].gpu, cost_s, sla_fps);
	core_admit_resources(&d->gpus[g].res.core, need,
	                     d->cfg.params.cap_encoder_limit, &a);
	return a;
}
