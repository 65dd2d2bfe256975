/* Space harvesting (COMBO: Chen et al., SoCC '23; its errata
 * in docs/papers.md): best-effort work on the SMs a game does
 * not need during its frame, and the choice, frame by frame, between
 * dividing the GPU in space and sharing it in time.
 *
 * Per game and per frame (core_combo_decide):
 *   - the load's spread over the last W render times and the next
 *     prediction (Eq. 2, state = (max - min) / mean), stable under
 *     stable_spread (Eq. 3: 10 %), else dynamic. The paper has neither a
 *     window nor a hysteresis (erratum 2): W and a hold time are ours,
 *     the hold asymmetric (stable for hold_s to enter the split, one
 *     dynamic frame to leave it);
 *   - stable: the integrated (exact inter-SM) scheme. The render gets
 *     SM_render = min(SM_total, ceil(SM_total x fps x rt x (1 + eps)))
 *     SMs, rounded up to the partition granularity g (Eq. 5 corrected,
 *     erratum 1: printed upside down), and best-effort work the rest;
 *   - dynamic: the relaxed (intra-SM) scheme: the render has the whole GPU
 *     and best-effort work is admitted only where its predicted end still
 *     lets the frame meet its deadline (core_combo_fits), else it waits:
 *     the temporal fallback;
 *   - the safe switch: a render group that grows, or a change of scheme,
 *     holds new best-effort launches for that frame (in-flight kernels keep
 *     their SMs: the paper's Fig. 11 hazard). A group that shrinks needs no
 *     hold (the paper holds on every change, §5.2; ours is the fix);
 *   - headroom merging (§5.5, core_combo_merge_gain): two frames' windows
 *     joined, in the relaxed scheme only, where the joined window admits
 *     more kernels than the two apart.
 *
 * "SMs" are whatever the device partitions: SMs through MPS contexts or
 * green contexts on an NVIDIA GPU, compute units through OpenCL
 * sub-devices (cores, on PoCL). Pure: no I/O, no clock, no globals. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CORE_COMBO_MAX_WINDOW 64

enum core_combo_scheme {
	CORE_COMBO_INTEGRATED = 0, /* inter-SM: disjoint SM groups */
	CORE_COMBO_RELAXED = 1,    /* intra-SM: whole GPU, admission */
};

struct core_combo_params {
	uint32_t sm_total;    /* SMs (or compute units) of the device */
	uint32_t granularity; /* g: partitions come in multiples of it */
	double stable_spread; /* Eq. 3: a spread under it is stable (0.10) */
	uint32_t window;      /* W: measured render times Eq. 2 reads, with
	                         the prediction (1..CORE_COMBO_MAX_WINDOW) */
	double hold_s;        /* the load must be stable this long before
	                         the split is entered; one dynamic frame
	                         leaves it */
	double eps;           /* Eq. 5's (1 + eps): the predictor's error
	                         bound (Eq. 4's 5.16 %) */
	double margin_s;      /* relaxed: a best-effort kernel must end this
	                         long before the frame's deadline */
};

/* One game's state across frames. Zero-initialised is a game with no
 * history (its first frame is relaxed: nothing is known). */
struct core_combo_game {
	double rt[CORE_COMBO_MAX_WINDOW]; /* measured render times (s) */
	uint32_t n_rt;                    /* how many of rt hold one */
	uint32_t next;                    /* where the next one goes */
	enum core_combo_scheme scheme;    /* the scheme in force */
	uint32_t split;                   /* the render group in force
	                                     (integrated); 0 = none */
	double stable_s;                  /* time the load has been stable */
	bool started;                     /* a frame was decided */
};

/* What core_combo_decide chose for one frame. */
struct core_combo_frame {
	enum core_combo_scheme scheme;
	double spread;   /* Eq. 2 over the window and the prediction */
	uint32_t split;  /* SMs of the render group: Eq. 5 (integrated),
	                    sm_total (relaxed) */
	uint32_t be_sms; /* SMs best-effort kernels may be launched onto
	                    this frame: sm_total - split (integrated), 0
	                    when held; relaxed: sm_total (admission by
	                    core_combo_fits) */
	bool hold_be;    /* no new best-effort launch this frame: the render
	                    group grew or the scheme changed */
	bool switched;   /* the scheme changed at this frame */
};

/* SM count 82 (RTX 3090, Table 1), g 1, stable under 10 % (Eq. 3), W 8
 * frames, hold 0.1 s, eps 0.0516 (Eq. 4's error bound), margin 0.2 ms. */
struct core_combo_params core_combo_params_default(void);

/* Eq. 2: (max - min) / mean over rt[0..n) and next (next < 0: left
 * out). 0 with fewer than two values or a mean that is not positive. */
double core_combo_spread(const double *rt, size_t n, double next);

/* Eq. 5, corrected: the SMs a render of rt_full seconds on the whole GPU
 * needs to end within 1/fps, with (1 + eps) for the prediction's error,
 * rounded up to a multiple of g and at most sm_total; sm_total for a
 * frame that needs the whole GPU or bad input. */
uint32_t core_combo_split(const struct core_combo_params *p, double fps,
                          double rt_full);

/* A measured render time (whole-GPU seconds) into the game's window. */
void core_combo_record(const struct core_combo_params *p,
                       struct core_combo_game *g, double rt_s);

/* The frame about to start: rt_pred its predicted render time on the whole
 * GPU, fps the game's rate, dt_s the time since the last decision. */
struct core_combo_frame core_combo_decide(const struct core_combo_params *p,
                                          struct core_combo_game *g, double fps,
                                          double rt_pred, double dt_s);

/* Integrated: whether a best-effort kernel on the SMs the render group of
 * split leaves may still run when the next frame starts. Only if Eq. 5 at
 * the longest render time in the window needs no more than split: a next
 * frame no longer than those finds its SMs free. Otherwise the kernel must
 * end within the frame (else a growing group would wait for it: the
 * paper's Fig. 11 hazard, which its hold alone does not remove). */
bool core_combo_may_span(const struct core_combo_params *p,
                         const struct core_combo_game *g, double fps,
                         uint32_t split);

/* Relaxed admission: a best-effort kernel of be_s seconds (on the SMs it
 * would get) may start at now_s if it ends margin_s before the frame's
 * deadline_s, with the render's predicted end at render_end_s after
 * sharing (<= deadline_s - margin_s: the frame keeps its QoS). */
bool core_combo_fits(const struct core_combo_params *p, double now_s,
                     double be_s, double render_end_s, double deadline_s);

/* Headroom merging (§5.5): how many more kernels of kernel_s fit in two
 * frames' windows joined (h1 + h2) than apart; 0 when merging gains
 * nothing, so the frames are not merged. */
uint32_t core_combo_merge_gain(double h1_s, double h2_s, double kernel_s);

/* How long to delay the second frame of a merged pair (§5.5): its slack
 * 1/fps - rt (1 + eps) less delta_s, never negative. */
double core_combo_merge_delay(const struct core_combo_params *p, double fps,
                              double rt_s, double delta_s);

/* Kernel classes (§2, Table 3): CD runs on CUDA cores, TC on Tensor Cores,
 * RT on RT Cores (the game's ray-tracing phase). */
enum core_combo_kclass {
	CORE_COMBO_CD = 0,
	CORE_COMBO_TC = 1,
	CORE_COMBO_RT = 2,
};

/* A kernel as the pairing rule sees it: its class and whose it is. */
struct core_combo_kernel {
	enum core_combo_kclass cls;
	bool game; /* the game's render kernel, else best-effort */
};

/* Whether two kernels may share SMs (intra-SM co-run, §5.1.2 as
 * docs/papers.md reads it, erratum 6). Never: RT with TC (the RT kernel's >= 8
 * KB of shared memory and a TC kernel's > 40 KB exceed the 48 KB left with
 * graphics on an RTX 3090 SM); a game CD kernel with any best-effort
 * kernel (it takes > 32 KB and runs alone on the whole GPU: with a BE TC
 * kernel the memory does not fit, and the paper co-runs nothing else with
 * it); two of the game's own kernels (the render is sequential). Allowed:
 * game RT with BE CD, and two BE kernels (CD with TC gains, same class
 * gains nothing: Table 3's 0 %). */
bool core_combo_may_corun(struct core_combo_kernel a,
                          struct core_combo_kernel b);

/* Each kernel's speed, as a share of its solo speed, while two share SMs
 * with makespan reduction m (Eq. 1): 1 / (2 (1 - m)), so that equal solo
 * times T end together at (1 - m) 2T. m is clamped to [0, 0.5). */
double core_combo_corun_speed(double m);

/* Predicted ends, from now, of two kernels with a_s and b_s seconds of
 * solo work left that start sharing SMs now: both at
 * core_combo_corun_speed(m) until the shorter ends, the other alone at full
 * speed after. Bad input (negative or not finite) gives INFINITY. */
void core_combo_corun_ends(double a_s, double b_s, double m, double *a_end,
                           double *b_end);
