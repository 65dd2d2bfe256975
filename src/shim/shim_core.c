/* The API-neutral shim (shim.h): set-up at the first Present, then the
 * frame path. Set-up may allocate, log and make syscalls; the frame path
 * only reads clocks, sleeps and touches memory we own. */
#include "shim/shim.h"

#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "core/gate.h"
#include "core/pacing.h"
#include "core/predictor.h"
#include "ipc/control.h"
#include "ipc/ring.h"
#include "ipc/shm_layout.h"
#include "sdk/quality_internal.h"
#include "shim/shim_clock.h"
#include "shim/shim_config.h"
#include "shim/shim_conn.h"
#include "shim/shim_partition.h"
#include "shim/shim_sleep.h"

/* No sleep is ever longer than this, whatever the period says: a game
 * must never look hung because of us. */
#define MAX_SLEEP_NS 1000000000LL
/* Frames whose GPU time never came (a report overwritten by a newer one
 * before the frame path took it, a query slot reused) are charged to the
 * budget gate at the predicted cost, up to this many at a time: more than
 * the front-ends keep in flight means the gap is not lost reports but
 * frames that were never measured (the first ones, before the timer
 * queries were set up). */
#define MAX_UNREPORTED 8

enum phase {
	PHASE_UNINIT = 0, /* nothing done yet (or a fork child) */
	PHASE_INIT,       /* one thread is setting up; others pass through */
	PHASE_READY,
	PHASE_DISABLED,
};

static _Atomic int phase = PHASE_UNINIT;
/* Held from shim_frame_begin to shim_frame_end. A second thread presenting
 * meanwhile, or a nested Present (GL on Vulkan, a hook reached twice), is
 * passed through unpaced instead of waiting or being paced twice. */
static atomic_flag busy = ATOMIC_FLAG_INIT;

/* Everything below belongs to the thread holding busy (or to set-up). */
static struct shim_config cfg;
static struct ipc_shm shm;
static int shm_fd = -1;

static struct {
	uint64_t frame;          /* frames begun */
	int64_t last_end_ns;     /* when the last Present returned, 0: none */
	int64_t fixed_period_ns; /* from BATON_FPS, 0: not pinned */
	int64_t start_period_ns; /* from BATON_SLA, 0: none (or no daemon to
	                            register with) */
	int64_t ctl_period_ns;   /* last target the daemon published */
	int64_t ctl_phase_ns;    /* the Present phase it asks for, 0 = none
	                            (core/harvest_phase.h) */
	bool ctl_seen;           /* ctl_period_ns came from the daemon */
	double local_cap;        /* from BATON_CAP, 0: none */
	uint32_t ctl_cap;        /* last cap the daemon published, GPU ns
	                            per s, 0: none */
	struct core_gate gate;   /* the cap in force, the smaller of the two */
	uint64_t gpu_seen;       /* newest frame whose GPU time we took */
	struct core_pacer pacer;
	struct core_predictor pred;
	struct shim_sleeper sleeper;
	/* For waits the budget gate decides: no spin. Its deadline needs no
	 * microseconds (the bucket keeps filling while a wake-up is late),
	 * and on a software rasterizer a spin would be the shared device's
	 * CPU, charged to the game's own budget. */
	struct shim_sleeper gate_sleeper;
	struct baton_frame rec; /* the frame between begin and end */
	/* Software rasterizer only (shim_set_software_device): process CPU
	 * time when the last pacing wait ended, 0: none yet; the cores the
	 * process may run on. */
	int64_t cpu_after_wait_ns;
	int cores;
	/* Process CPU time up to which the budget gate was charged, 0: not
	 * yet. The gate is charged all of it, the waits included: what the
	 * shim itself spends around a wait (the pacer's spin, the sleep's
	 * system calls, a rasterizer thread still drawing) is the shared
	 * device's time too, and a cap is a share of the device. */
	int64_t cpu_charged_ns;
} fs;

static _Atomic bool software_device;

/* The latest GPU-time report, from any thread (shim_gpu_time), under a
 * seqlock whose writers never wait: one that finds another mid-write
 * drops its report, which is fine since the latest report wins anyway. */
static struct {
	_Atomic uint32_t seq;
	_Atomic uint64_t frame;
	_Atomic int64_t gpu_ns;
	_Atomic uint32_t flags;
} gpu_report;

static int64_t process_cpu_ns(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
		return 0;
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int usable_cores(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
		return CPU_COUNT(&set);
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

void shim_set_software_device(const char *why)
{
	if (!atomic_exchange(&software_device, true))
		shim_log(SHIM_LOG_INFO,
		         "software rasterizer (%s): GPU time is CPU time over "
		         "%d cores",
		         why, usable_cores());
}

/* The child of a fork has the parent's memory but not its thread, and its
 * frames are not the parent's: it starts over at its own first Present
 * (which also keeps a forked helper that never presents from registering).
 * Async-signal-safe only. */
static void on_fork_child(void)
{
	shim_conn_forget_in_child();
	atomic_store(&gpu_report.seq, 0);
	atomic_store(&gpu_report.frame, 0);
	atomic_flag_clear(&busy);
	atomic_store(&phase, PHASE_UNINIT);
}

static void register_fork_handler(void)
{
	pthread_atfork(NULL, NULL, on_fork_child);
}

/* BATON_SPIN_US=N fixes the spin margin at N us (0: sleep only); unset, the
 * margin adapts to the observed wake-up latency. For benchmarks. */
static int64_t spin_margin_ns(void)
{
	double us;
	const char *s = getenv("BATON_SPIN_US");
	if (s && shim_parse_decimal(s, &us) && us <= 1000.0)
		return (int64_t)(us * 1000.0);
	return -1;
}

/* A game linked with libbaton.so (the quality API, baton.h) gets the
 * quality area and the control block; one without it never knows. The
 * symbol is looked up, not linked, so the shim loads into any game. */
static void attach_quality_sdk(void)
{
	void *sym = dlsym(RTLD_DEFAULT, BATON_QUALITY_ATTACH_SYM);
	if (!sym)
		return;
	baton_quality_attach_fn attach;
	memcpy(&attach, &sym, sizeof(attach));
	attach(shm.quality, shm.control);
	shim_log(SHIM_LOG_INFO, "quality API: libbaton.so attached");
}

static bool setup(enum shim_api api)
{
	int expect = PHASE_UNINIT;
	if (!atomic_compare_exchange_strong(&phase, &expect, PHASE_INIT))
		return false;
	/* A fork child: the parent's region is shared with the parent, so
	 * let go of it; the child gets its own below. */
	if (shm.base)
		ipc_shm_unmap(&shm);
	if (shm_fd >= 0)
		close(shm_fd);
	shm_fd = -1;

	shim_config_read(&cfg);
	if (cfg.disable) {
		atomic_store(&phase, PHASE_DISABLED);
		return false;
	}
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, register_fork_handler);
	/* The default 50 us of timer slack would be added to every pacing
	 * sleep. Per thread: this is the presenting one. */
	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);

	memset(&fs, 0, sizeof(fs));
	fs.cores = usable_cores();
	fs.local_cap = cfg.cap;
	core_gate_init(&fs.gate, cfg.cap);
	if (cfg.fixed_fps > 0.0)
		fs.fixed_period_ns = (int64_t)(1e9 / cfg.fixed_fps + 0.5);
	shim_sleeper_init(&fs.sleeper, spin_margin_ns());
	shim_sleeper_init(&fs.gate_sleeper, 0);

	shm_fd = ipc_shm_create((uint32_t)getpid(), &shm);
	if (shm_fd < 0) {
		shim_log(SHIM_LOG_WARN, "no shared memory (%s): unregistered",
		         strerror(-shm_fd));
		shm_fd = -1;
	} else {
		attach_quality_sdk();
	}
	if (shm_fd >= 0 && cfg.socket_ok &&
	    shim_conn_start(&cfg, api, shm_fd) && cfg.sla_fps > 0.0) {
		/* Registration takes a round trip on another thread; until
		 * batond writes the control block the game runs at its SLA
		 * rather than free. */
		fs.start_period_ns = (int64_t)(1e9 / cfg.sla_fps + 0.5);
	}
	char cap[48] = "";
	if (cfg.cap > 0.0)
		snprintf(cap, sizeof(cap), ", GPU time capped at %.3f",
		         cfg.cap);
	shim_log(SHIM_LOG_INFO, "%s: %s%s%s, pid %d", cfg.name,
	         fs.fixed_period_ns ? "pinned" : "paced by batond",
	         !fs.fixed_period_ns && fs.start_period_ns
	             ? ", at its SLA until then"
	             : "",
	         cap, (int)getpid());
	atomic_store_explicit(&phase, PHASE_READY, memory_order_release);
	return true;
}

void shim_gpu_time(uint64_t frame, int64_t gpu_ns, bool from_fence)
{
	if (frame == 0 || gpu_ns < 0 || gpu_ns >= IPC_FRAME_MAX_GPU_NS)
		return;
	uint32_t s =
	    atomic_load_explicit(&gpu_report.seq, memory_order_relaxed);
	if ((s & 1u) || !atomic_compare_exchange_strong_explicit(
	                    &gpu_report.seq, &s, s + 1, memory_order_relaxed,
	                    memory_order_relaxed))
		return;
	atomic_thread_fence(memory_order_release);
	atomic_store_explicit(&gpu_report.frame, frame, memory_order_relaxed);
	atomic_store_explicit(&gpu_report.gpu_ns, gpu_ns, memory_order_relaxed);
	atomic_store_explicit(&gpu_report.flags,
	                      from_fence ? BATON_FRAME_GPU_FENCE : 0u,
	                      memory_order_relaxed);
	atomic_store_explicit(&gpu_report.seq, s + 2, memory_order_release);
}

/* Takes a GPU-time report newer than the last one taken into the predictor
 * and the record; the record says "none" otherwise. Returns what the
 * frames since the last report cost, for the budget gate: the report, and
 * the frames between whose reports were lost at the predicted cost; -1
 * without a new report. */
static int64_t take_gpu_report(void)
{
	fs.rec.gpu_ns = -1;
	fs.rec.gpu_frame = 0;
	fs.rec.flags = 0;
	uint32_t s1 =
	    atomic_load_explicit(&gpu_report.seq, memory_order_acquire);
	if (s1 & 1u)
		return -1;
	uint64_t frame =
	    atomic_load_explicit(&gpu_report.frame, memory_order_relaxed);
	int64_t ns =
	    atomic_load_explicit(&gpu_report.gpu_ns, memory_order_relaxed);
	uint32_t flags =
	    atomic_load_explicit(&gpu_report.flags, memory_order_relaxed);
	atomic_thread_fence(memory_order_acquire);
	if (atomic_load_explicit(&gpu_report.seq, memory_order_relaxed) != s1)
		return -1;
	/* Frames we have not begun yet are some other process's (a report
	 * that crossed a fork) or nonsense. */
	if (frame <= fs.gpu_seen || frame > fs.frame)
		return -1;
	uint64_t lost = fs.gpu_seen ? frame - fs.gpu_seen - 1 : 0;
	fs.gpu_seen = frame;
	core_predictor_add(&fs.pred, (double)ns);
	fs.rec.gpu_ns = ns;
	fs.rec.gpu_frame = frame;
	fs.rec.flags = flags;
	if (lost > MAX_UNREPORTED)
		lost = MAX_UNREPORTED;
	return ns + (int64_t)lost * (int64_t)core_predictor_predict(&fs.pred);
}

/* A software rasterizer's frame costs CPU on the shared cores, all of it
 * outside the pacing wait: the app's thread building the frame, the
 * rasterizer's threads drawing it inside the swap. The process's CPU time
 * from the end of the last wait to the start of this one is the last
 * frame's, whatever thread spent it; over the usable cores it is the
 * frame's share of the device, the same unit as a GPU's busy time (what
 * batond's k_i and utilization are made of: g_i = k_i * f_i, vGASA
 * Algorithm 3). */
static void take_software_cost(int64_t cpu_before_wait)
{
	if (fs.cpu_after_wait_ns > 0 && fs.frame > 0 &&
	    cpu_before_wait >= fs.cpu_after_wait_ns) {
		int64_t ns =
		    (cpu_before_wait - fs.cpu_after_wait_ns) / fs.cores;
		if (ns < IPC_FRAME_MAX_GPU_NS) {
			fs.rec.gpu_ns = ns;
			fs.rec.gpu_frame = fs.frame;
			fs.rec.flags = BATON_FRAME_GPU_SOFTWARE;
			return;
		}
	}
	fs.rec.gpu_ns = -1;
	fs.rec.gpu_frame = 0;
	fs.rec.flags = 0;
}

/* The daemon's latest target and cap, each kept when a read races a
 * write, when a value is out of range, and after the daemon is gone. */
static void read_control(int64_t now)
{
	struct ipc_control_values v;
	bool software =
	    atomic_load_explicit(&software_device, memory_order_relaxed);
	if (!shm.control || !ipc_control_read(shm.control, &v) ||
	    !(v.flags & BATON_CONTROL_VALID)) {
		shim_partition_follow(NULL, software, now);
		return;
	}
	shim_partition_follow(&v, software, now);
	if (v.target_period_ns >= 0 &&
	    v.target_period_ns <= IPC_FRAME_MAX_PERIOD_NS) {
		fs.ctl_period_ns = v.target_period_ns;
		fs.ctl_seen = true;
	}
	if (v.cap_ns_per_s <= BATON_CAP_MAX_NS_PER_S)
		fs.ctl_cap = v.cap_ns_per_s;
	/* core_pacer_steer ignores a phase far from now */
	fs.ctl_phase_ns =
	    v.flags & BATON_CONTROL_PHASE ? v.present_phase_ns : 0;
}

/* The period in force: pinned, else the daemon's latest target. Before
 * the daemon wrote one: the SLA while registration may still come,
 * unpaced once it is known not to (fail open: no daemon, no pacing but
 * BATON_FPS). */
static int64_t pick_period(void)
{
	if (fs.fixed_period_ns)
		return fs.fixed_period_ns;
	if (fs.ctl_seen)
		return fs.ctl_period_ns;
	return shim_conn_absent() ? 0 : fs.start_period_ns;
}

/* The cap in force: the smaller of BATON_CAP and the daemon's (a local
 * cap can only tighten the daemon's, never lift it), handed to the gate
 * when it changes. */
static void apply_cap(int64_t now)
{
	double cap =
	    core_gate_cap_tighter(fs.local_cap, (double)fs.ctl_cap / 1e9);
	if (cap != fs.gate.cap)
		core_gate_set_cap(&fs.gate, now, cap);
}

/* The gate's share of a wait of sleep_ns, in whole microseconds rounded up
 * (a gate wait of any length shows), never more than the wait itself
 * rounded up. */
static uint32_t gate_us(int64_t gate_ns, int64_t sleep_ns)
{
	if (gate_ns > sleep_ns)
		gate_ns = sleep_ns;
	if (gate_ns <= 0)
		return 0;
	int64_t us = (gate_ns + 999) / 1000;
	return us < (int64_t)UINT32_MAX ? (uint32_t)us : UINT32_MAX;
}

uint64_t shim_frame_begin(enum shim_api api)
{
	int ph = atomic_load_explicit(&phase, memory_order_acquire);
	if (ph != PHASE_READY && (ph != PHASE_UNINIT || !setup(api)))
		return 0;
	if (atomic_flag_test_and_set_explicit(&busy, memory_order_acquire))
		return 0;

	bool software =
	    atomic_load_explicit(&software_device, memory_order_relaxed);
	int64_t cpu_before_wait = software ? process_cpu_ns() : 0;
	int64_t now = shim_now_ns();
	int64_t cpu = fs.last_end_ns ? now - fs.last_end_ns : 0;
	if (cpu > IPC_FRAME_MAX_CPU_NS)
		cpu = IPC_FRAME_MAX_CPU_NS; /* a game paused for hours */
	int64_t cost = take_gpu_report();
	if (software) {
		take_software_cost(cpu_before_wait);
		cost = fs.cpu_charged_ns > 0 &&
		               cpu_before_wait >= fs.cpu_charged_ns
		           ? (cpu_before_wait - fs.cpu_charged_ns) / fs.cores
		           : -1;
		fs.cpu_charged_ns = cpu_before_wait;
	}
	read_control(now);
	apply_cap(now);
	/* Charged when the measurement arrives, however late. */
	if (cost >= 0)
		core_gate_charge(&fs.gate, now, cost);
	int64_t period = pick_period();
	int64_t gpu_pred = (int64_t)core_predictor_predict(&fs.pred);
	int64_t wake = core_pacer_next_wake(&fs.pacer, now, period, gpu_pred);
	/* The grid may ask for more than a period: after a switch from a long
	 * period to a short one, or when the GPU prediction drops. Never
	 * sleep more than one period (nor a second); move the grid instead. */
	int64_t limit = period < MAX_SLEEP_NS ? period : MAX_SLEEP_NS;
	if (wake - now > limit) {
		wake = now + limit;
		fs.pacer.deadline_ns = wake + fs.pacer.offset_ns;
	}
	/* Then the phase batond asks for (core/harvest_phase.h): at most a
	 * step past that limit. A pinned rate (BATON_FPS) is the user's grid:
	 * never moved. */
	if (!fs.fixed_period_ns)
		wake = core_pacer_steer(&fs.pacer, now, wake, period,
		                        fs.ctl_phase_ns);
	/* The budget gate: with a pacing target too, the later of the two,
	 * in one sleep. A late frame re-anchors the pacer's grid at its next
	 * Present. The debt stays when a wait is cut to a second: the next
	 * frame waits for the rest. */
	int64_t open = core_gate_open_at(&fs.gate, now);
	if (open - now > MAX_SLEEP_NS)
		open = now + MAX_SLEEP_NS;
	struct shim_sleeper *sleeper = &fs.sleeper;
	/* The gate's share of the wait (shm.h gate_us) starts where the
	 * pacer's would have ended (now, when the pacer would not sleep).
	 * batond tells a cap-bound game from a paced one by it
	 * (core/reach.h). */
	int64_t paced_until = wake > now ? wake : now;
	bool gated = open > paced_until;
	if (gated) { /* an open time in (wake, now] needs no wait either */
		wake = open;
		sleeper = &fs.gate_sleeper;
	}
	int64_t present = wake > now ? shim_sleep_until(sleeper, wake) : now;

	if (software)
		fs.cpu_after_wait_ns = process_cpu_ns();
	fs.rec.present_ns = present;
	fs.rec.cpu_ns = cpu;
	fs.rec.sleep_ns = present - now;
	fs.rec.target_period_ns = period;
	/* A late wake-up is the fault of whoever set the wake. */
	fs.rec.gate_us =
	    gated ? gate_us(present - paced_until, present - now) : 0;
	return ++fs.frame;
}

void shim_frame_end(uint64_t frame)
{
	if (frame == 0)
		return;
	if (frame == fs.frame) {
		if (shm.ring)
			ipc_ring_push(shm.ring, shm.records, &fs.rec);
		fs.last_end_ns = shim_now_ns();
	}
	atomic_flag_clear_explicit(&busy, memory_order_release);
}
