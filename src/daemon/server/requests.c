/* What a control connection asks for (server.h): the hello handshake,
 * permission checks and request dispatch. A message that cannot be parsed,
 * is invalid or is denied ends its connection after an error reply (so a
 * peer cannot keep one connection busy with refusals); the daemon goes on
 * serving everyone else. */
#include "daemon/server/server.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "daemon/gpus.h"
#include "daemon/tick/tick_res.h"
#include "ipc/cpu_list.h"
#include "ipc/msg.h"
#include "util/log.h"

static void reply_error(struct server *s, struct conn *c, const char *code,
                        const char *message)
{
	conn_send_line(s, c, ipc_msg_error_line(code, message));
}

/* Whether gid is the peer's primary group or one of its supplementary
 * groups (SO_PEERGROUPS: the groups it had when it connected). */
static bool peer_in_group(const struct conn *c, gid_t gid)
{
	if (c->cred.gid == gid)
		return true;
	gid_t small[64], *g = small;
	socklen_t len = sizeof(small);
	if (getsockopt(c->fd, SOL_SOCKET, SO_PEERGROUPS, g, &len) < 0) {
		if (errno != ERANGE || len == 0)
			return false;
		g = malloc(len);
		if (!g ||
		    getsockopt(c->fd, SOL_SOCKET, SO_PEERGROUPS, g, &len) < 0) {
			free(g);
			return false;
		}
	}
	bool in = false;
	for (size_t i = 0; i < len / sizeof(gid_t) && !in; i++)
		in = g[i] == gid;
	if (g != small)
		free(g);
	return in;
}

/* Admin: root, the daemon's user, a member of the daemon's group or of the
 * configured admin group (admin_group), supplementary groups included. */
static bool is_admin(const struct server *s, const struct conn *c)
{
	const struct daemon_config *cfg = &s->d->cfg;
	return c->cred.uid == 0 || c->cred.uid == s->euid ||
	       peer_in_group(c, s->egid) ||
	       (cfg->has_admin_group && peer_in_group(c, cfg->admin_gid));
}

/* Tenants registered now by owner (owners.h): its own uid's and its
 * subordinate uids'. */
static size_t tenants_of(const struct daemon *d, uid_t owner)
{
	size_t n = 0;
	for (size_t i = 0; i < d->n_tenants; i++)
		n += d->tenants[i]->owner == owner;
	return n;
}

/* Whether c's owner has as many tenants as max_tenants_per_uid allows
 * (the connection failed if so). */
static bool hello_over_cap(struct server *s, struct conn *c)
{
	unsigned cap = s->d->cfg.max_tenants_per_uid;
	if (cap == 0 || tenants_of(s->d, c->owner) < cap)
		return false;
	char msg[200];
	if (c->owner == c->cred.uid)
		snprintf(msg, sizeof(msg),
		         "uid %u has %u tenants registered, the most "
		         "max_tenants_per_uid allows",
		         (unsigned)c->cred.uid, cap);
	else
		snprintf(msg, sizeof(msg),
		         "uid %u (a subordinate uid of uid %u) has %u "
		         "tenants registered with its owner's other "
		         "uids, the most max_tenants_per_uid allows",
		         (unsigned)c->cred.uid, (unsigned)c->owner, cap);
	conn_fail(s, c, BATON_ERR_DENIED, msg);
	return true;
}

/* The GPU it renders on (daemon/gpus.h): the one it names, else the core
 * set holding every CPU it may run on, else the first (*fallback). -1
 * (the connection failed) for a name no GPU here has. */
static int hello_gpu(struct server *s, struct conn *c,
                     const struct ipc_msg_hello *h, bool *fallback)
{
	cpu_set_t allowed;
	bool have = daemon_gpus_allowed(c->cred.pid, &allowed);
	int gpu =
	    daemon_gpu_choose(s->d->gpus, s->d->n_gpus, h->gpu, h->gpu_uuid,
	                      NULL, have ? &allowed : NULL, fallback);
	if (gpu >= 0)
		return gpu;
	char msg[200], safe[32 * 4];
	char names[96] = "";
	for (size_t g = 0, at = 0; g < s->d->n_gpus && at < 80; g++) {
		int w = snprintf(names + at, sizeof(names) - at, "%s%s",
		                 g ? ", " : "", s->d->gpus[g].name);
		at += w > 0 ? (size_t)w : 0;
	}
	snprintf(msg, sizeof(msg), "no GPU \"%s\" here (%s)",
	         ipc_escape(safe, sizeof(safe), h->gpu), names);
	conn_fail(s, c, BATON_ERR_NOT_FOUND, msg);
	return -1;
}

/* When c's peer connected, on CLOCK_BOOTTIME (the clock of a process's
 * start time in /proc): its accept time on batond's monotonic clock,
 * moved by how far that clock is from CLOCK_BOOTTIME now. */
static int64_t connected_boot_ns(const struct conn *c)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_BOOTTIME, &ts) != 0)
		return -1;
	int64_t boot = (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
	return boot - (daemon_now_ns() - c->born_ns);
}

/* The tenant of a hello, on GPU gpu (open: by default, its DRM clients
 * may move it), taking over *shm; NULL when out of memory. */
static struct tenant *hello_register(struct server *s, struct conn *c,
                                     const struct ipc_msg_hello *h,
                                     struct ipc_shm *shm, unsigned gpu,
                                     bool open)
{
	struct tenant *t;
	if (h->role == IPC_ROLE_BE) {
		t = daemon_add_be_tenant(s->d, h->name, c->cred.pid,
		                         c->cred.uid, h->weight, h->cap, shm,
		                         daemon_now_ns());
		if (!t)
			return NULL;
		tenant_seen_check_peer(&t->seen, connected_boot_ns(c));
		daemon_tenant_to_gpu(s->d, t, gpu);
		t->be_state.partition = h->partition;
		t->be_state.core.idle_capable = h->idle;
		return t;
	}
	t = daemon_add_tenant(s->d, h->name, c->cred.pid, c->cred.uid,
	                      h->sla_fps, h->fixed_fps, shm, daemon_now_ns());
	if (!t)
		return NULL;
	tenant_seen_check_peer(&t->seen, connected_boot_ns(c));
	daemon_tenant_to_gpu(s->d, t, gpu);
	t->gpu_open = open && s->d->n_gpus > 1;
	daemon_tenant_hello_cap(t, h->cap);
	/* The GL shim paces before the real swap, which hands the frame to
	 * the device: none of it runs during the wait
	 * (core/harvest_slot.h). A game that says so falsely moves the slot
	 * onto its own frames only. */
	t->work_after_wait = strcmp(h->api, "gl") == 0;
	return t;
}

static void hello(struct server *s, struct conn *c,
                  const struct ipc_msg_hello *h)
{
	c->hello = true;
	if (h->role == IPC_ROLE_CLIENT) {
		if (c->memfd >= 0) {
			conn_fail(s, c, BATON_ERR_PROTOCOL,
			          "a client hello carries no descriptor");
			return;
		}
		conn_send_line(s, c, ipc_msg_welcome(-1));
		return;
	}
	/* Before the memfd is looked at: a user past the cap costs nothing
	 * more. */
	if (hello_over_cap(s, c))
		return;
	if (c->memfd < 0) {
		conn_fail(s, c, BATON_ERR_SHM,
		          "a tenant hello carries exactly one memfd, got none");
		return;
	}
	bool open;
	int gpu = hello_gpu(s, c, h, &open);
	if (gpu < 0)
		return;
	char err[160];
	struct ipc_shm shm;
	if (!ipc_shm_map(c->memfd, &shm, err, sizeof(err))) {
		conn_fail(s, c, BATON_ERR_SHM, err);
		return;
	}
	/* A memfd of the right size (its seals were checked before anything
	 * else): closing it runs no one's release, so it is closed here.
	 * The mapping stays valid without it. */
	close(c->memfd);
	c->memfd = -1;
	c->tenant_role = true;
	c->tenant = hello_register(s, c, h, &shm, (unsigned)gpu, open);
	if (!c->tenant) {
		ipc_shm_unmap(&shm);
		conn_fail(s, c, BATON_ERR_INVALID, "out of memory");
		return;
	}
	/* The seat placement held for it, if any, is now its own. */
	core_place_holds_take(&s->d->place_holds, (uint32_t)gpu, c->cred.uid);
	conn_send_line(s, c, ipc_msg_welcome(c->tenant->id));
}

/* A field of m that does not apply to t, or NULL: a best-effort tenant
 * takes weight and cap, a game everything but weight. */
static const char *set_misfit(const struct tenant *t,
                              const struct ipc_msg_set *m)
{
	if (t->be) {
		if (m->has_sla)
			return "sla_fps";
		if (m->has_fixed)
			return "fixed_fps";
		if (m->has_wc)
			return "work_conserving";
		if (m->has_level)
			return "level";
		return NULL;
	}
	return m->has_weight ? "weight" : NULL;
}

static void apply_set(struct tenant *t, const struct ipc_msg_set *m)
{
	if (m->has_weight && m->weight != t->be_state.weight) {
		log_info("best-effort tenant %llu \"%s\": weight %g -> %g",
		         (unsigned long long)t->id, t->name, t->be_state.weight,
		         m->weight);
		t->be_state.weight = m->weight;
	}
	if (m->has_sla)
		t->sla_fps = m->sla_fps;
	if (m->has_fixed)
		t->fixed_fps = m->fixed_fps;
	if (m->has_cap && m->cap != t->cap) {
		log_info("tenant %llu \"%s\": cap %g -> %g",
		         (unsigned long long)t->id, t->name, t->cap, m->cap);
		t->cap = m->cap;
	}
	if (m->has_wc)
		t->work_conserving = m->work_conserving;
	if (m->has_level && m->level != t->quality.pinned &&
	    daemon_quality_pin(&t->quality, m->level))
		log_info("tenant %llu \"%s\": quality level %s%s",
		         (unsigned long long)t->id, t->name,
		         m->level < 0 ? "unpinned" : "pinned to ",
		         m->level < 0 ? "" : t->quality.level_names[m->level]);
}

static bool set_matches(const struct tenant *t, const struct ipc_msg_set *m)
{
	return !t->corrupt && (!m->has_id || t->id == m->id) &&
	       (!m->has_uid || (unsigned long)t->uid == m->uid) &&
	       (!m->has_name || strcmp(t->name, m->name) == 0);
}

/* false, with the error sent, when m gives t a field it does not take. */
static bool misfit_check(struct server *s, struct conn *c,
                         const struct tenant *t, const struct ipc_msg_set *m)
{
	const char *f = set_misfit(t, m);
	char msg[160];
	if (!f && m->has_level && !t->be &&
	    (!t->quality.declared || m->level >= (int)t->quality.n_levels)) {
		snprintf(msg, sizeof(msg),
		         "level %d: game tenant %llu declared %u quality "
		         "levels; nothing changed",
		         m->level, (unsigned long long)t->id,
		         t->quality.declared ? t->quality.n_levels : 0u);
		conn_fail(s, c, BATON_ERR_INVALID, msg);
		return false;
	}
	if (!f)
		return true;
	snprintf(msg, sizeof(msg),
	         "field \"%s\" does not apply to %s tenant %llu; nothing "
	         "changed",
	         f, t->be ? "best-effort" : "game", (unsigned long long)t->id);
	conn_fail(s, c, BATON_ERR_INVALID, msg);
	return false;
}

/* The tenants a set addresses: by id, owner and name, every one given. A
 * name alone that matches tenants of more than one user is refused, the
 * matches listed: two users' games of one name are not one thing to an
 * operator, and "set NAME" must not change a stranger's game by
 * accident. false with the reply sent. */
static bool set_check(struct server *s, struct conn *c,
                      const struct ipc_msg_set *m)
{
	const struct daemon *d = s->d;
	size_t hits = 0;
	bool several = false, others = false;
	uid_t first = 0;
	for (size_t i = 0; i < d->n_tenants; i++) {
		const struct tenant *t = d->tenants[i];
		if (!set_matches(t, m))
			continue;
		if (hits++ == 0)
			first = t->uid;
		else if (t->uid != first)
			several = true;
		if (t->uid != c->cred.uid)
			others = true;
	}
	if (others && !is_admin(s, c)) {
		conn_fail(s, c, BATON_ERR_DENIED,
		          "only root, the daemon's user or a member of its "
		          "group or admin_group may set another user's "
		          "tenant");
		return false;
	}
	if (!hits) {
		reply_error(s, c, BATON_ERR_NOT_FOUND,
		            "no tenant matches that name, id and uid");
		return false;
	}
	for (size_t i = 0; i < d->n_tenants; i++)
		if (set_matches(d->tenants[i], m) &&
		    !misfit_check(s, c, d->tenants[i], m))
			return false;
	if (several && m->has_name && !m->has_id && !m->has_uid && !m->all) {
		char msg[512];
		int n = snprintf(msg, sizeof(msg),
		                 "\"%s\" names tenants of more than one user; "
		                 "give --uid, --id or --all:",
		                 m->name);
		size_t listed = 0;
		for (size_t i = 0;
		     i < d->n_tenants && n > 0 && (size_t)n < sizeof(msg) - 48;
		     i++) {
			const struct tenant *t = d->tenants[i];
			if (!set_matches(t, m))
				continue;
			n += snprintf(msg + n, sizeof(msg) - (size_t)n,
			              "%s id %llu uid %u", listed++ ? "," : "",
			              (unsigned long long)t->id,
			              (unsigned)t->uid);
		}
		if (n > 0 && (size_t)n >= sizeof(msg) - 48 && listed < hits)
			snprintf(msg + n, sizeof(msg) - (size_t)n, ", ...");
		conn_fail(s, c, BATON_ERR_INVALID, msg);
		return false;
	}
	return true;
}

static void set(struct server *s, struct conn *c, const struct ipc_msg_set *m)
{
	if (!m->has_name && !m->has_id && !m->has_uid) {
		/* A tenant's own registration, on its own connection. */
		if (!c->tenant) {
			conn_fail(s, c, BATON_ERR_INVALID,
			          "set without a name, id or uid needs a "
			          "tenant connection");
			return;
		}
		if (!misfit_check(s, c, c->tenant, m))
			return;
		apply_set(c->tenant, m);
		conn_send_line(s, c, ipc_msg_ok());
		return;
	}
	if (!set_check(s, c, m))
		return;
	for (size_t i = 0; i < s->d->n_tenants; i++)
		if (set_matches(s->d->tenants[i], m))
			apply_set(s->d->tenants[i], m);
	conn_send_line(s, c, ipc_msg_ok());
}

static void policy(struct server *s, struct conn *c,
                   const struct ipc_msg_policy *m)
{
	if (!is_admin(s, c)) {
		conn_fail(s, c, BATON_ERR_DENIED,
		          "only root, the daemon's user or a member of its "
		          "group or admin_group may change the policy");
		return;
	}
	const struct core_policy *p = core_policy_find(m->name);
	if (!p) {
		conn_fail(s, c, BATON_ERR_INVALID,
		          "policy must be sa, fsa, esa or none");
		return;
	}
	if (p != s->d->policy)
		log_info("policy %s -> %s (uid %d)", s->d->policy->name,
		         p->name, (int)c->cred.uid);
	s->d->policy = p;
	conn_send_line(s, c, ipc_msg_ok());
}

static void status(struct server *s, struct conn *c)
{
	if (!is_admin(s, c)) {
		conn_fail(s, c, BATON_ERR_DENIED,
		          "only root, the daemon's user or a member of its "
		          "group or admin_group may ask for status");
		return;
	}
	conn_send_line(s, c, ipc_msg_encode(daemon_status(s->d)));
}

bool server_profile_cost(const struct daemon *d, const struct conn *c,
                         const char *profile, double *cost_s, double *sla,
                         struct core_res_need *need, const char **source)
{
	const struct daemon_app *app = daemon_config_app(&d->cfg, profile);
	if (app && app->cost_ms > 0.0) {
		*cost_s = app->cost_ms * 1e-3;
		*sla = app->sla_fps;
		*need = daemon_app_need(app);
		*source = "config";
		return true;
	}
	for (size_t i = 0; i < d->n_tenants; i++) {
		const struct tenant *t = d->tenants[i];
		if (t->corrupt || t->uid != c->cred.uid ||
		    strcmp(t->name, profile) != 0 || !(t->core.k > 0.0))
			continue;
		*cost_s = t->core.k;
		*sla = daemon_tenant_sla(d, t);
		/* what it was measured to use of the encoder and VRAM */
		*need = (struct core_res_need){
		    .encoder = t->res.video_share,
		    .vram_bytes = t->res.vram_bytes,
		};
		*source = "learned";
		return true;
	}
	return false;
}

/* The node's answer: the sum of what fits over its GPUs, with the figures
 * of the GPU that admits most (ties: the first). */
struct node_admit {
	struct core_admit best;
	size_t best_gpu;
	json_int_t more;
	bool fits, severe;
	uint32_t overloaded;
};

/* Each GPU's controller answers for itself: its answers as a JSON array
 * (NULL when out of memory), the node's in *n. */
/* A count of core_admit (admit_res.h): null where the resource does not
 * bind. */
static json_t *count_json(uint32_t more)
{
	return more == UINT32_MAX ? json_null() : json_integer(more);
}

/* One GPU's answer, with its encoder's and VRAM's figures. */
static json_t *gpu_answer(const struct daemon_gpu *dg,
                          const struct core_admit *ag)
{
	const struct gpu_res *r = &dg->res;
	uint64_t free_b = r->core.vram_used < r->core.vram_total
	                      ? r->core.vram_total - r->core.vram_used
	                      : 0;
	return json_pack(
	    "{s:s, s:b, s:I, s:s, s:f, s:f, s:b, s:I, s:o, s:o, s:f, s:s, "
	    "s:f, s:s}",
	    "name", dg->name, "fits", (int)ag->fits, "more",
	    (json_int_t)(ag->fits ? ag->more : 0), "reason",
	    core_admit_reason_str(ag->why), "load", ag->load, "limit",
	    ag->limit, "severe", (int)dg->gpu.caps.severe, "more_3d",
	    (json_int_t)ag->more_3d, "more_encoder",
	    count_json(ag->more_encoder), "more_vram",
	    count_json(ag->more_vram), "encoder_load", r->core.encoder_load,
	    "encoder_source", r->encoder_source ? r->encoder_source : "none",
	    "vram_free_mb",
	    r->core.vram_total ? (double)free_b / (1024.0 * 1024.0) : 0.0,
	    "vram_source", r->vram_source ? r->vram_source : "none");
}

static json_t *admit_gpus(const struct daemon *d, double cost_s, double sla,
                          const struct core_res_need *need,
                          struct node_admit *n)
{
	*n = (struct node_admit){0};
	json_t *gpus = json_array();
	for (size_t g = 0; g < d->n_gpus && gpus; g++) {
		const struct core_gpu *gp = &d->gpus[g].gpu;
		struct core_admit ag =
		    daemon_gpu_admit(d, g, cost_s, sla, need);
		if (g == 0 ||
		    (ag.fits && (!n->best.fits || ag.more > n->best.more)))
			n->best = ag, n->best_gpu = g;
		n->fits |= ag.fits;
		n->more += ag.fits ? (json_int_t)ag.more : 0;
		n->severe |= gp->caps.severe;
		n->overloaded += gp->caps.n_overloaded;
		json_array_append_new(gpus, gpu_answer(&d->gpus[g], &ag));
	}
	return gpus;
}

/* With the quality lever (core/quality_stage.h): whether it would fit
 * with every game at its cheapest level, and the joins the stage refused
 * so far (dJay's admission failures), over the node's GPUs. */
static json_t *quality_admit(const struct daemon *d, double cost_s, double sla)
{
	struct core_quality_admit q = {0}, qb = {0};
	json_int_t refusals = 0;
	for (size_t g = 0; g < d->n_gpus; g++) {
		struct core_quality_admit qg = core_quality_admit(
		    &d->cfg.params, &d->gpus[g].gpu, cost_s, sla);
		if (g == 0 || (qg.fits && (!qb.fits || qg.more > qb.more)))
			qb = qg;
		q.fits |= qg.fits;
		q.more += qg.fits ? qg.more : 0;
		refusals += (json_int_t)d->gpus[g].gpu.quality.refusals;
	}
	return json_pack("{s:b, s:I, s:f, s:f, s:f, s:I}", "fits", (int)q.fits,
	                 "more", (json_int_t)q.more, "floor", qb.floor, "need",
	                 qb.need, "budget", qb.budget, "refusals", refusals);
}

/* Any user may ask: the answer reveals the GPU's aggregate load and
 * whether it is overloaded, nothing about another user's tenants (a
 * profile is a configured app, or a program the asker itself runs). */
static void capacity(struct server *s, struct conn *c,
                     const struct ipc_msg_capacity *m)
{
	const struct daemon *d = s->d;
	double cost_s = m->cost_ms * 1e-3, sla = m->sla_fps;
	const char *source = "given";
	struct core_res_need need = {0};
	if (m->has_profile && !server_profile_cost(d, c, m->profile, &cost_s,
	                                           &sla, &need, &source)) {
		char msg[192];
		char safe[IPC_NAME_MAX * 4];
		snprintf(msg, sizeof(msg),
		         "no profile \"%s\": not an app with cost_ms in "
		         "batond's config, nor a program of yours whose cost "
		         "batond has learned",
		         ipc_escape(safe, sizeof(safe), m->profile));
		reply_error(s, c, BATON_ERR_NOT_FOUND, msg);
		return;
	}
	/* what the asker says it needs replaces the profile's */
	if (m->encoder > 0.0)
		need.encoder = m->encoder;
	if (m->vram_mb > 0.0)
		need.vram_bytes = (uint64_t)(m->vram_mb * 1024.0 * 1024.0);
	struct node_admit n;
	json_t *gpus = admit_gpus(d, cost_s, sla, &need, &n);
	const struct core_admit *a = &n.best;
	json_t *o = json_pack(
	    "{s:s, s:b, s:I, s:s, s:s, s:f, s:f, s:f, s:f, s:f, s:f, s:b, s:I, "
	    "s:s, s:o}",
	    "type", "capacity", "fits", (int)n.fits, "more", n.more, "reason",
	    core_admit_reason_str(a->why), "source", source, "cost_ms",
	    cost_s * 1e3, "sla_fps", sla, "load", a->load, "newcomer",
	    a->newcomer, "overhead", a->overhead, "limit", a->limit, "severe",
	    (int)n.severe, "overloaded", (json_int_t)n.overloaded,
	    /* the GPU whose figures these are, and every GPU's answer */
	    "gpu", d->gpus[n.best_gpu].name, "gpus",
	    gpus ? gpus : json_array());
	if (o && m->has_profile)
		json_object_set_new(o, "profile", json_string(m->profile));
	if (o) {
		json_object_set_new(o, "encoder", json_real(need.encoder));
		json_object_set_new(
		    o, "vram_mb",
		    json_real((double)need.vram_bytes / (1024.0 * 1024.0)));
	}
	if (o && d->cfg.params.quality_on)
		json_object_set_new(o, "quality",
		                    quality_admit(d, cost_s, sla));
	conn_send_line(s, c, ipc_msg_encode(o));
}

/* The GPUs (daemon/gpus.h), for `baton run --gpu` and anyone placing a
 * session: names, devices and core sets, no tenant and no load. Any user
 * may ask, as for capacity. */
static void gpus(struct server *s, struct conn *c)
{
	const struct daemon *d = s->d;
	json_t *list = json_array();
	for (size_t g = 0; g < d->n_gpus && list; g++)
		json_array_append_new(list, server_gpu_json(&d->gpus[g]));
	conn_send_line(s, c,
	               ipc_msg_encode(list ? json_pack("{s:s, s:o}", "type",
	                                               "gpus", "gpus", list)
	                                   : NULL));
}

void conn_handle_line(struct server *s, struct conn *c, const char *line,
                      size_t len)
{
	struct ipc_msg m;
	struct ipc_msg_error e;
	if (!ipc_msg_parse(line, len, &m, &e)) {
		conn_fail(s, c, e.code, e.message);
		return;
	}
	if (!c->hello && m.type != IPC_MSG_HELLO) {
		conn_fail(s, c, BATON_ERR_PROTOCOL,
		          "the first message must be "
		          "a hello");
		return;
	}
	switch (m.type) {
	case IPC_MSG_HELLO:
		if (c->hello)
			conn_fail(s, c, BATON_ERR_PROTOCOL, "hello sent twice");
		else
			hello(s, c, &m.hello);
		break;
	case IPC_MSG_SET:
		set(s, c, &m.set);
		break;
	case IPC_MSG_POLICY:
		policy(s, c, &m.policy);
		break;
	case IPC_MSG_STATUS:
		status(s, c);
		break;
	case IPC_MSG_CAPACITY:
		capacity(s, c, &m.capacity);
		break;
	case IPC_MSG_GPUS:
		gpus(s, c);
		break;
	case IPC_MSG_PLACE:
		server_place(s, c, &m.place);
		break;
	}
}
