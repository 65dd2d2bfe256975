/* What batond sees of a tenant's GPU time (tenant_seen.h). */
#include "daemon/tick/tenant_seen.h"

#include <math.h>

/* Two of /proc's clock ticks (USER_HZ, 100 a second): the CPU time read
 * at a tick may lag what the process used by up to one, and the one read
 * at its registration by another. */
#define CPU_SLACK_S 0.02
/* A software flag holds while its claim is cut by no more than this an
 * epoch: a tenant whose CPU time covers its reports. */
#define SOFTWARE_CUT_S 0.001
/* The longest a game's frame may bank its CPU credit and carry what
 * counted of it: a frame's GPU time is under 10 s (IPC_FRAME_MAX_GPU_NS). */
#define SEEN_BANK_S 10.0

void tenant_seen_open(struct tenant_seen *s, const char *proc_root, pid_t pid,
                      int64_t now_ns)
{
	*s = (struct tenant_seen){.cpu_credit_s = CPU_SLACK_S,
	                          .last_present_ns = now_ns};
	if (!proc_cpu_open(&s->clock, proc_root, pid))
		s->unmeasured = true;
}

void tenant_seen_check_peer(struct tenant_seen *s, int64_t connected_boot_ns)
{
	if (proc_cpu_started_after(&s->clock, connected_boot_ns)) {
		s->clock.ok = false;
		s->unmeasured = true;
	}
}

/* The claim bounded by the game's presents: the time between its last
 * present last epoch (or its registration) and this epoch's, plus what
 * earlier epochs left unclaimed, at most one epoch of it. */
static double bound_by_presents(struct tenant_seen *s,
                                const struct tenant_seen_claim *c, double claim,
                                double dt)
{
	if (c->last_present_ns > s->last_present_ns) {
		s->wall_credit_s +=
		    (double)(c->last_present_ns - s->last_present_ns) * 1e-9;
		s->last_present_ns = c->last_present_ns;
	}
	double seen = fmin(claim, s->wall_credit_s);
	s->wall_credit_s = fmin(s->wall_credit_s - seen, dt);
	return seen;
}

/* The claim bounded by the process's CPU time this epoch (and a credit of
 * at most an epoch and the slack); nothing when it cannot be read. */
static double bound_by_cpu(struct tenant_seen *s, double claim)
{
	if (s->unmeasured)
		return 0.0;
	double seen = fmin(claim, s->cpu_credit_s);
	s->cpu_credit_s -= seen;
	return seen;
}

/* bank: how long a credit may build up, an epoch but for a game's frame
 * longer than one (tenant_seen.h). */
static void sample_cpu(struct tenant_seen *s, double dt, double bank)
{
	int64_t used;
	s->cpu_s = 0.0;
	if (s->unmeasured)
		return;
	if (!proc_cpu_sample(&s->clock, &used)) {
		s->unmeasured = true;
		return;
	}
	s->cpu_s = (double)used * 1e-9;
	double share = s->cpu_s / (s->same_pid > 1 ? s->same_pid : 1);
	s->cpu_credit_s = fmin(s->cpu_credit_s + share, bank + CPU_SLACK_S);
}

/* A game's epoch after its bounds: its unclaimed time and CPU credit
 * restart at a claim, and what counts beyond dt is carried. Returns what
 * counts this epoch, in [0, dt]. */
static double spread_game(struct tenant_seen *s,
                          const struct tenant_seen_claim *c, double seen,
                          double dt)
{
	if (c->records > 0) {
		s->unclaimed_s = 0.0;
		s->cpu_credit_s = fmin(s->cpu_credit_s, dt + CPU_SLACK_S);
	} else {
		s->unclaimed_s = fmin(s->unclaimed_s + dt, SEEN_BANK_S);
	}
	double total = s->carry_s + seen;
	double now = fmin(total, dt);
	s->carry_s = fmin(total - now, SEEN_BANK_S);
	return now;
}

double tenant_seen_epoch(struct tenant_seen *s,
                         const struct tenant_seen_claim *c, bool cpu_device,
                         double dt)
{
	sample_cpu(s, dt, c->game ? dt + s->unclaimed_s : dt);
	double claim = c->gpu_s > 0.0 && isfinite(c->gpu_s) ? c->gpu_s : 0.0;
	s->claimed_s = claim;
	/* a game's presents bound it; a best-effort tenant's epoch does */
	double seen =
	    c->game ? bound_by_presents(s, c, claim, dt) : fmin(claim, dt);
	double before_cpu = seen;
	/* A tenant that says its GPU time is CPU time is held to it on any
	 * GPU; on a CPU device every tenant is. */
	if (cpu_device || c->software)
		seen = bound_by_cpu(s, seen);
	if (c->records > 0)
		s->software = c->software && !s->unmeasured &&
		              before_cpu - seen <= SOFTWARE_CUT_S;
	s->seen_s = seen;
	return c->game ? spread_game(s, c, seen, dt) : seen;
}
