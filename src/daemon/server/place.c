/* Where a new session goes (server.h, IPC_MSG_PLACE): each GPU's
 * controller answers admission for itself, and the config's placement
 * (core/place.h: spread or pack) picks among the GPUs that admit. Any
 * user may ask, as for capacity: the answer shows each GPU's aggregate
 * load, nothing about another user's tenants. */
#include "daemon/server/server.h"

#include <stdio.h>
#include <string.h>

#include "core/place.h"
#include "core/place_hold.h"
#include "daemon/gpus.h"
#include "daemon/tick/tick_res.h"
#include "ipc/cpu_list.h"
#include "ipc/msg.h"

json_t *server_gpu_json(const struct daemon_gpu *g)
{
	static const char *const kinds[] = {
	    [DAEMON_GPU_UNKNOWN] = "unknown",
	    [DAEMON_GPU_HARDWARE] = "hardware",
	    [DAEMON_GPU_CPUS] = "cpus",
	};
	char cpus[256] = "";
	if (g->has_cpus)
		ipc_cpu_list_format(&g->cpus, cpus, sizeof(cpus));
	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "name", g->name,
	                 "device", g->device, "pci", g->pci, "uuid", g->uuid,
	                 "cpus", cpus, "kind", kinds[daemon_gpu_kind(g)]);
}

/* The logical GPUs whose core sets hold every CPU the asker may run on
 * (a session started under taskset renders there on a software
 * rasterizer): those alone are eligible; every GPU when none is. */
static void eligible_by_affinity(const struct daemon *d, pid_t pid,
                                 struct core_place_gpu *pg)
{
	cpu_set_t allowed;
	bool have = daemon_gpus_allowed(pid, &allowed) && CPU_COUNT(&allowed);
	size_t holding = 0;
	for (size_t g = 0; g < d->n_gpus; g++) {
		cpu_set_t both;
		pg[g].eligible = false;
		if (!have || !d->gpus[g].has_cpus)
			continue;
		CPU_AND(&both, &allowed, &d->gpus[g].cpus);
		pg[g].eligible = CPU_EQUAL(&both, &allowed);
		holding += pg[g].eligible;
	}
	for (size_t g = 0; g < d->n_gpus && holding == 0; g++)
		pg[g].eligible = true;
}

/* Why a GPU that admits the session by its loads has no seat left for
 * it: the sessions placed there but not registered yet (their holds)
 * take the room its count of such sessions leaves. Only where the count
 * is known (the session's cost is). */
static bool seats_held(const struct core_admit *a, double cost_s, uint32_t held)
{
	return cost_s > 0.0 && a->fits && held > 0 && held >= a->more;
}

/* Each GPU's answer for the session (cost_s 0: its cost is unknown)
 * into pg, with the seats held for sessions being placed counted as
 * sessions (core/place_hold.h), and as a JSON array (NULL when out of
 * memory): the same admission as capacity's (the 3D engine, the
 * encoder, VRAM). Each GPU's expected load of the session goes to
 * newcomer[]. */
static json_t *answers(struct daemon *d, double cost_s, double sla,
                       const struct core_res_need *need,
                       struct core_place_gpu *pg, double *newcomer)
{
	struct core_place_gpu holds[DAEMON_MAX_GPUS] = {0};
	uint32_t held[DAEMON_MAX_GPUS];
	core_place_holds_apply(&d->place_holds, daemon_now_ns(), holds,
	                       d->n_gpus, held);
	json_t *list = json_array();
	for (size_t g = 0; g < d->n_gpus && list; g++) {
		const struct core_gpu *gp = &d->gpus[g].gpu;
		struct core_admit a =
		    cost_s > 0.0 ? daemon_gpu_admit(d, g, cost_s, sla, need)
		                 : core_place_admit_unknown(&d->cfg.params, gp);
		bool seats = seats_held(&a, cost_s, held[g]);
		pg[g].admits = a.fits && !seats;
		pg[g].load = a.load + holds[g].load;
		pg[g].tenants = d->gpus[g].n_tenants + holds[g].tenants;
		newcomer[g] = cost_s > 0.0 ? a.newcomer : 0.0;
		const char *why = !pg[g].eligible
		                      ? "the session's CPUs are another GPU's"
		                  : seats ? "its room is held for sessions "
		                            "being placed"
		                          : core_admit_reason_str(a.why);
		json_array_append_new(
		    list,
		    json_pack("{s:s, s:b, s:s, s:f, s:f, s:I, s:I}", "name",
		              d->gpus[g].name, "fits",
		              (int)(pg[g].admits && pg[g].eligible), "reason",
		              why, "load", pg[g].load, "limit", a.limit,
		              "tenants", (json_int_t)d->gpus[g].n_tenants,
		              "held", (json_int_t)held[g]));
	}
	return list;
}

void server_place(struct server *s, struct conn *c,
                  const struct ipc_msg_place *m)
{
	struct daemon *d = s->d;
	double cost_s = 0.0, sla = 0.0;
	const char *source = "unknown";
	struct core_res_need need = {0};
	if (m->has_cost) {
		cost_s = m->cost_ms * 1e-3, sla = m->sla_fps;
		source = "given";
	} else if (m->has_profile &&
	           !server_profile_cost(d, c, m->profile, &cost_s, &sla, &need,
	                                &source)) {
		cost_s = 0.0; /* not known: placed by load alone */
		source = "unknown";
	}
	struct core_place_gpu pg[DAEMON_MAX_GPUS];
	eligible_by_affinity(d, c->cred.pid, pg);
	double newcomer[DAEMON_MAX_GPUS];
	json_t *list = answers(d, cost_s, sla, &need, pg, newcomer);
	int at = core_place_pick(pg, d->n_gpus, d->cfg.placement);
	const char *mode = core_place_mode_name(d->cfg.placement);
	/* One GPU leaves nothing to choose: the session goes there, as
	 * it always did (baton run --wait is admission on such a node). */
	if (d->n_gpus == 1)
		at = 0, mode = "only";
	if (at >= 0)
		core_place_holds_add(&d->place_holds, (uint32_t)at, c->cred.uid,
		                     newcomer[at], daemon_now_ns(),
		                     (int64_t)d->cfg.place_hold_ms * 1000000);
	json_t *o;
	if (at >= 0)
		o = json_pack("{s:s, s:b, s:s, s:s, s:o}", "type", "place",
		              "placed", 1, "by", mode, "cost", source, "gpu",
		              server_gpu_json(&d->gpus[at]));
	else
		o = json_pack("{s:s, s:b, s:s, s:s, s:s}", "type", "place",
		              "placed", 0, "by", mode, "cost", source, "reason",
		              "no GPU admits the session");
	if (o && list)
		json_object_set_new(o, "gpus", list);
	else
		json_decref(list);
	conn_send_line(s, c, ipc_msg_encode(o));
}
