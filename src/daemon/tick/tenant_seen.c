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

static void sample_cpu(struct tenant_seen *s, double dt)
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
	s->cpu_credit_s = fmin(s->cpu_credit_s + share, dt + CPU_SLACK_S);
}

double tenant_seen_epoch(struct tenant_seen *s,
                         const struct tenant_seen_claim *c, bool cpu_device,
                         double dt)
{
	sample_cpu(s, dt);
	double claim = c->gpu_s > 0.0 && isfinite(c->gpu_s) ? c->gpu_s : 0.0;
	s->claimed_s = claim;
	double seen = fmin(claim, dt);
	if (c->game)
		seen = bound_by_presents(s, c, seen, dt);
	double before_cpu = seen;
	/* A tenant that says its GPU time is CPU time is held to it on any
	 * GPU; on a CPU device every tenant is. */
	if (cpu_device || c->software)
		seen = bound_by_cpu(s, seen);
	if (c->records > 0)
		s->software = c->software && !s->unmeasured &&
		              before_cpu - seen <= SOFTWARE_CUT_S;
	s->seen_s = seen;
	return seen;
}
