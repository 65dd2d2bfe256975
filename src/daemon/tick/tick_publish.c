/* The admission each publisher target is told (tick_publish.h). */
#include "daemon/tick/tick_publish.h"

#include "core/caps.h"
#include "daemon/daemon.h"
#include "daemon/publish/publish.h"
#include "daemon/tick/tick_res.h"

/* The node's answer: the sum over its GPUs (daemon/gpus.h) of what
 * each admits; severe only when every GPU is (one that is not may still
 * take sessions). */
static void input(const struct daemon *d, const struct daemon_app *a,
                  uint32_t sessions, struct publish_input *in)
{
	bool severe = true;
	for (size_t g = 0; g < d->n_gpus; g++)
		severe &= d->gpus[g].gpu.caps.severe;
	*in = (struct publish_input){.sessions = sessions, .severe = severe};
	if (!a)
		return;
	in->valid = true;
	/* the smallest of what the 3D engine, the encoder and VRAM admit
	 * (tick_res.h) */
	struct core_res_need need = daemon_app_need(a);
	for (size_t g = 0; g < d->n_gpus; g++) {
		struct core_admit adm = daemon_gpu_admit(
		    d, g, a->cost_ms * 1e-3, a->sla_fps, &need);
		in->fits |= adm.fits;
		in->more += adm.fits ? adm.more : 0;
	}
}

void publish_offer(struct daemon *d)
{
	if (!d->publisher)
		return;
	/* Games: every tenant but the best-effort ones. Not a walk over the
	 * registry (64 cold cache lines a tick); a tenant this tick found
	 * corrupt counts until the loop drops it, right after. */
	uint32_t sessions = (uint32_t)(d->n_tenants - d->n_be);
	struct publish_input a, k;
	input(d, d->publish_agones_app, sessions, &a);
	input(d, d->publish_k8s_app, sessions, &k);
	publisher_update(d->publisher, &a, &k);
}
