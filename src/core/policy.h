/* Per-GPU pacing policies (vGASA Sec. 3.2, Algorithms 1-3) behind one small
 * interface, so that later levers (caps, quality, harvesting) plug in the
 * same way and the daemon runs exactly what the simulator ran.
 *
 * A policy only chooses each tenant's reference frame rate (ref_fps). The
 * controller (controller.h) learns the per-tenant coefficients before the
 * policy runs and turns references into pacing targets with the PI loop
 * after it. Policies are pure: all state lives in the caller-allocated
 * tenant array and struct core_gpu. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/caps.h"
#include "core/pi.h"
#include "core/quality_stage.h"

struct core_space_gpu; /* core/harvest_space.h */

/* Tunables shared by the policies; see core_params_default(). Each one a
 * config file or a scenario sets is described in core/params_table.c. */
struct core_params {
	struct core_pi_gains pi;
	double epoch_s;      /* control period the driver ticks at (s) */
	double sla_margin;   /* SA/FSA aim at sla * (1 + sla_margin) */
	double util_target;  /* ESA: fraction of the GPU to fill, (0, 1] */
	double fsa_guard;    /* FSA: "below" means fps < sla * (1 + guard);
	                        donors never go under sla * (1 + 2 guard) */
	double fsa_relax;    /* FSA: donors' references grow by at least this
	                        fraction per second while every tenant is safe,
	                        faster with headroom (policy_fsa.c) */
	double fsa_hold_s;   /* FSA: after a reallocation, wait this long for
	                        it to show in the measurements before the next */
	double k_alpha;      /* EWMA weight of a new GPU-seconds-per-frame
	                        sample, (0, 1] */
	double fps_smooth_s; /* time constant of the smoothed F_out that FSA
	                        decides on (s) */
	double reach_tol;    /* a tenant is short of its reference when the
	                        rate it can reach is under ref * (1 - tol) */
	double reach_hold_s; /* a tenant short of its reference this long
	                        in a row is "limited" (reach.h) */
	double reach_low_s;  /* the reach of its slow frames (reach_low_fps)
	                        follows a drop at once and a rise with this
	                        time constant (s); 0 = not kept (reach.h) */
	double esa_climb;    /* ESA: while every tenant reaches it, a lowered
	                        common reference climbs back by this fraction
	                        per second */
	/* Capacity (gOver Sec. 3.3, caps.h). The paper gives no values for
	 * U_o, U_l, w_u, w_e; the defaults were picked with the simulator
	 * (docs/capacity.md). */
	double cap_period_s; /* sampling period T (gOver: 1 s) */
	double cap_u_over;   /* U_o: u_i above it cap_run times in a row is
	                        an overload signal */
	double cap_u_limit;  /* U_l: admit only while total load plus the
	                        newcomer's stays under it */
	double cap_w_u;      /* w_u, weight of u_i in the donor factor */
	double cap_w_e;      /* w_e, weight of the normalised QoS error */
	double cap_steal;    /* share of the donor's unused cap moved per
	                        mitigation (gOver: 1/5) */
	uint32_t cap_run;    /* successive samples over U_o for an overload
	                        signal (gOver: 3) */
	uint32_t cap_quiet;  /* periods without an overload signal before
	                        admitting (gOver: 3) */
	double cap_total;    /* capacity the dynamic caps share (1 = one GPU) */
	double cap_sla_tol;  /* FPS under sla x (1 - tol) over a period is
	                        QoS broken (a window edge is not) */
	double cap_qos_margin; /* u over U_o counts only in a sample whose
	                          FPS is under sla x (1 + margin): a tenant
	                          above that loses surplus frames, not its
	                          SLA, when its cap binds (docs/capacity.md) */
	/* U_l of the video encoder: admit a stream only while the encoder's
	 * load plus its share stays under it (admit_res.h) */
	double cap_encoder_limit;
	/* Quality (dJay, quality_stage.h). quality.budget is set each tick
	 * from util_target in Baton mode; the paper mode keeps it (33 ms). */
	bool quality_on;    /* the quality stage chooses levels */
	bool quality_paper; /* dJay's own: weight 1, ms, budget 33, '<' */
	struct quality_params quality;
	/* Baton's damping of the epoch step on measured, noisy costs (not
	 * in paper mode): upgrades only fill the budget less this share of
	 * it, and a game whose upgrade was undone within quality_hold_s is
	 * not upgraded again for as long (quality_stage.c). */
	double quality_headroom;
	double quality_hold_s;
	/* Latency, not load (quality_stage.c, not in paper mode): a game
	 * keeps a level only while the rate it could reach there (reach.h)
	 * stays over its held rate x (1 + this), and is raised to one only
	 * if it would reach over the held rate x (1 + 2 x this); 0 = off. */
	double quality_reach_headroom;
	/* A cost that steps up (quality_stage.c, not in paper mode): when an
	 * epoch's own GPU seconds per frame exceed the smoothed k by this
	 * share of it in quality_step_epochs epochs with frames in a row, k
	 * takes the least of those epochs' costs at once; 0 = off. */
	double quality_step_ratio;
	uint32_t quality_step_epochs;
	/* Headroom for the games' joint cost noise (quality_stage.c, not in
	 * paper mode): the levels fit the budget less this many standard
	 * deviations of the knapsack's total, measured epoch by epoch;
	 * 0 = off. */
	double quality_spread_z;
};

/* One tenant as the policy core sees it. The driver (simulator or daemon)
 * fills the inputs each epoch; the core keeps its state here between ticks
 * (a zeroed struct plus inputs is a fresh tenant); outputs are read back. */
struct core_tenant {
	/* inputs */
	double sla_fps;    /* criterion, > 0 */
	double fixed_fps;  /* > 0: pinned rate, the policy leaves it alone */
	double fps;        /* F_out over the last epoch, <= 0 if unknown */
	double gpu_busy_s; /* GPU time the tenant used in the last epoch */
	/* gpu_busy_s is a measurement even when 0: the driver bounded the
	 * tenant's report to it (what the daemon sees of a claim). Else a 0
	 * means no timing arrived this epoch, and k is left as it was. */
	bool gpu_bounded;
	uint32_t frames;       /* frames completed in the last epoch */
	uint32_t paced_frames; /* of those, frames the pacer delayed; 0 means
	                          the game ran flat out */
	double sleep_s;        /* the pacing sleeps of those frames, summed: how
	                          far the pacer held the game back (reach.h);
	                          the budget gate's waits are not in it */
	double gate_s;         /* how long the budget gate held those frames
	                          beyond the pacer's wake, summed (shm.h
	                          gate_us; the simulator: time its budget GPU
	                          model held the tenant's work for want of
	                          budget): the cap, not the pacer, held the
	                          game back (reach.h: cap_bound) */
	double present_s;      /* when its last Present was, in seconds on
	                          the caller's clock; 0 = none yet (the
	                          harvesting slot, harvest_slot.h) */
	bool work_after_wait;  /* its frames reach the GPU after the pacing
	                          wait (OpenGL's swap), not before it
	                          (Vulkan's submit): no GPU work drains
	                          during its wait (harvest_slot.h) */
	double cap_initial;    /* published cap in (0, 1] (gOver's initial
	                          cap, G1); 0 = not capped (caps.h) */
	bool work_conserving;  /* its cap may be exceeded while the GPU has
	                          spare capacity: its budget is its cap plus
	                          a share of the spare (caps.c) */
	uint64_t owner; /* who runs it (batond: the uid from SO_PEERCRED; the
	                   simulator: the scenario's owner key). ESA bounds
	                   each owner's share of the budget (policy_esa.c). */

	/* state kept by the core */
	struct core_pi pi;
	double k;          /* learned GPU seconds per frame (vGASA's k_i); 0 =
	                      unknown. Never more than one GPU can do: at
	                      most the epoch over the frames, and the frame
	                      interval (controller.c) */
	double k_sample;   /* the last epoch's own GPU seconds per frame, as
	                      bounded for k; 0 = the epoch had none */
	double ref_fps;    /* the policy's reference; 0 = run free */
	double fps_smooth; /* F_out smoothed over fps_smooth_s; 0 = none yet */
	double reach_fps;  /* the rate the game could run at were its pacer
	                      not holding it back, smoothed; 0 = unknown */
	double reach_low_fps;    /* the same of its slowest frames lately: down
	                            at once with a slower epoch, up over
	                            reach_low_s (reach.h); 0 = unknown */
	uint32_t short_epochs;   /* consecutive epochs short of the reference */
	uint32_t ungated_epochs; /* consecutive epochs with frames and no
	                            gate wait (reach.h: cap_bound) */
	uint32_t epochs;         /* ticks the tenant has been through */
	/* ESA's scratch for one tick (policy_esa.c): the index of the first
	 * tenant of the same owner with a coefficient (its own index when
	 * it has none), and on that tenant the owner's totals. */
	struct core_esa_owner {
		size_t lead;
		double k;      /* its unpinned tenants' coefficients, summed */
		double pinned; /* the share its pinned tenants take */
		double fps;    /* capped: the rate its share affords */
		bool capped;   /* over its share at the common rate */
	} esa;
	struct core_cap_state caps;         /* the capacity stage (caps.h) */
	struct core_quality_tenant quality; /* levels (quality_stage.h) */

	/* output */
	double target_fps;   /* pacing target for the shim; 0 = unpaced; never
	                        under the SLA reference (core_sla_ref) while
	                        paced and not pinned */
	bool limited;        /* it cannot reach its reference (pinned rate,
	                        SLA, ESA's common rate): something other than
	                        the pacer and its own cap limits it (reach.h) */
	bool cap_bound;      /* its budget gate holds it back: its cap, not
	                        the machine, bounds its rate (reach.h); never
	                        limited at the same time */
	double phase_s;      /* a time (on the clock of present_s) its
	                        Presents should fall on, every 1 / target_fps
	                        (harvest_phase.h); 0 = its pacer keeps its
	                        own phase */
	double phase_held_s; /* state: the phase last given, held while the
	                        packing moves less than one of the shim's
	                        steps (harvest_phase.h); 0 = none */
};

/* Stage 6 of the tick, time harvesting (harvest.h): the caller's
 * best-effort tenants and where the stage's findings go. Best-effort
 * tenants are not in the tenant array: the stages before never see them
 * (not paced, capped or counted as load; what they use is idle time). */
struct core_harvest_params;
struct core_be_tenant;
struct core_harvest_gpu;
struct core_harvest_stage {
	const struct core_harvest_params *params; /* NULL: the stage is off */
	struct core_be_tenant *be; /* budgets, windows, modes (in, out) */
	size_t n_be;
	struct core_harvest_gpu *out; /* the GPU's window, slot, free share */
	bool games_seen; /* false: no game telemetry reaches the caller (a
	                    host Baton does not see): the games count for
	                    nothing and each tenant's probe decides */
	double now_s;    /* the tick's time, on the clock of present_s (the
	                    slot, harvest_slot.h) */
	double dt_s;     /* the tick's length (space harvesting's hold) */
	bool cpu_device; /* the GPU is this host's CPUs (a software
	                    rasterizer: the shims say so): the games are
	                    steered (harvest_phase.h) only there */
	struct core_space_gpu *space; /* the partition's state (in, out);
	                                 NULL or params->space.sm_total < 2:
	                                 no space harvesting */
};

/* State of one GPU kept between ticks. */
struct core_gpu {
	double util;        /* input: measured busy fraction, last epoch */
	double other_util;  /* input: busy fraction taken by work no tenant
	                       reports (a display server, other processes,
	                       a hypervisor's steal), smoothed; 0: none or
	                       unknown. ESA leaves it out of its budget. */
	double common_fps;  /* ESA: last common reference (output) */
	double esa_ceiling; /* ESA: the common reference lowered to what a
	                       limited tenant reaches; 0 = none */
	double esa_hold_s;  /* ESA: time left before the ceiling may step
	                       down again */
	double fsa_hold_s;  /* FSA: time left before the next reallocation */
	double fsa_gain;    /* FSA: what the next reallocation multiplies the
	                       need by (policy_fsa.c); 0 = 1 */
	double sla_util;    /* output: the share of the GPU the tenants need
	                       at their SLAs (pinned ones at their pinned
	                       rate), other_util included, of the tenants
	                       with a coefficient; 0 = unknown (none has
	                       one yet) */
	bool overload;      /* output: sla_util > util_target, the budget
	                       cannot hold every tenant at its SLA */
	struct core_caps_gpu caps;         /* the capacity stage (caps.h) */
	struct core_quality_gpu quality;   /* quality_stage.h */
	struct core_harvest_stage harvest; /* stage 6: the caller's, set
	                                      each tick */
};

struct core_policy {
	const char *name;
	const char *summary; /* one line for --help and docs */
	/* Sets every non-pinned tenant's ref_fps. Runs after the coefficients
	 * (k) were updated for this epoch. */
	void (*assign)(const struct core_params *p, struct core_gpu *gpu,
	               struct core_tenant *t, size_t n);
};

extern const struct core_policy core_policy_none; /* every tenant free */
extern const struct core_policy core_policy_sa;   /* Algorithm 1 */
extern const struct core_policy core_policy_fsa;  /* Algorithm 2 */
extern const struct core_policy core_policy_esa;  /* Algorithm 3 */

/* Defaults: vGASA's gains (kp 0.1, ki 0.05, clamp x4), 100 ms epoch, 1% SLA
 * margin, 95% ESA utilization target, 5% FSA guard, 2%/s FSA relax, 0.5 s
 * FSA hold, k_alpha 0.2, 0.5 s F_out smoothing, 3% reach tolerance held
 * 0.3 s, ESA climbing back 3%/s. Capacity: 1 s period, U_o 0.95, U_l 0.7,
 * w_u 1, w_e 1, steal 0.2, run 3, quiet 3, one GPU, 2% SLA tolerance. */
struct core_params core_params_default(void);

/* "none", "sa", "fsa", "esa"; NULL if unknown. */
const struct core_policy *core_policy_find(const char *name);
/* NULL-terminated list of every policy, for --help and --list. */
const struct core_policy *const *core_policy_all(void);
