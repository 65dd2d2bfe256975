/* The daemon's epoch tick in-process, on a virtual clock: measurements
 * from the rings, the policy core, the control blocks, status. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/daemon.h"
#include "daemon/tick/host_load.h"
#include "daemon/server/server.h"
#include "fake_proc.h"
#include "ipc/msg.h"
#include "ipc/control.h"
#include "ipc/ring.h"

#define MS 1000000LL
#define T0 (1000 * 1000 * MS) /* virtual clock starts at 1000 s */

struct game {
	int fd;
	struct ipc_shm shm; /* the shim's mapping */
	struct tenant *t;
	int64_t next_present;
	uint64_t seq;
	uint32_t flags; /* BATON_FRAME_* on its records, beside gpu_flags */
	int64_t cpu_ns; /* its process's CPU time in the fake /proc */
};

struct fixture {
	struct daemon d;
	struct game g[2];
	int64_t now;
	uint32_t gpu_flags; /* BATON_FRAME_* on every record */
	struct fake_proc proc;
	char stat[32]; /* a fake /proc/stat (fake_host), "" = none */
	unsigned long long busy, total; /* its jiffies */
};

/* Game i's process used ns more CPU time (the fake /proc). */
static void burn(struct fixture *f, int i, int64_t ns)
{
	f->g[i].cpu_ns += ns;
	fake_proc_set(&f->proc, 100 + i, f->g[i].cpu_ns);
}

static void add_game_fixed(struct fixture *f, int i, const char *name,
                           double sla, double fixed)
{
	struct game *g = &f->g[i];
	g->fd = ipc_shm_create(100 + (uint32_t)i, &g->shm);
	assert_true(g->fd >= 0);
	struct ipc_shm mine;
	char err[160];
	assert_true(ipc_shm_map(g->fd, &mine, err, sizeof(err)));
	burn(f, i, 0); /* its CPU clock starts at registration */
	g->t = daemon_add_tenant(&f->d, name, 100 + i, 1000, sla, fixed, &mine,
	                         f->now);
	assert_non_null(g->t);
	assert_null(mine.base); /* taken over */
	g->next_present = f->now + 5 * MS;
}

static void add_game(struct fixture *f, int i, const char *name, double sla)
{
	add_game_fixed(f, i, name, sla, 0);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct daemon_config cfg;
	daemon_config_defaults(&cfg);
	cfg.metrics_on = false;
	assert_true(daemon_init(&f->d, &cfg));
	/* a CPU device of two cores, whatever this machine has: the
	 * records' software claims below are CPU time over two */
	f->d.gpus[0].n_cpus = 2;
	fake_proc_init(&f->proc);
	f->d.proc_root = f->proc.root;
	f->now = T0;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	daemon_finish(&f->d);
	fake_proc_done(&f->proc);
	if (f->stat[0])
		unlink(f->stat);
	for (int i = 0; i < 2; i++) {
		if (f->g[i].shm.base) {
			ipc_shm_unmap(&f->g[i].shm);
			close(f->g[i].fd);
		}
	}
	free(f);
	return 0;
}

/* Game i renders until the epoch's end: free at free_fps, or paced to the
 * control block's period when it is longer, as the shim would. */
static int render(struct fixture *f, int i, double free_fps, int64_t gpu_ns,
                  int64_t until)
{
	int frames = 0;
	struct game *g = &f->g[i];
	struct ipc_control_values v = {0};
	ipc_control_read(g->shm.control, &v);
	int64_t base = (int64_t)(1e9 / free_fps);
	int64_t period = v.target_period_ns > base ? v.target_period_ns : base;
	while (g->next_present <= until) {
		g->seq++;
		struct baton_frame fr = {
		    .present_ns = g->next_present,
		    .cpu_ns = base / 2,
		    .sleep_ns = period - base, /* what the pacer slept */
		    .target_period_ns = v.target_period_ns,
		    .gpu_ns = gpu_ns,
		    .gpu_frame = g->seq,
		    .flags = f->gpu_flags | g->flags,
		};
		ipc_ring_push(g->shm.ring, g->shm.records, &fr);
		g->next_present += period;
		frames++;
	}
	return frames;
}

static void epoch(struct fixture *f, int games, double free_fps)
{
	f->now += 100 * MS;
	for (int i = 0; i < games; i++)
		render(f, i, free_fps, 2 * MS, f->now);
	daemon_tick(&f->d, f->now);
}

static void test_sa_settles_on_reference(void **state)
{
	struct fixture *f = *state;
	add_game(f, 0, "a", 0);  /* default SLA 30 */
	add_game(f, 1, "b", 60); /* its own */
	for (int e = 0; e < 100; e++)
		epoch(f, 2, 120.0);
	struct ipc_control_values v;
	assert_true(ipc_control_read(f->g[0].shm.control, &v));
	assert_int_equal(v.flags, BATON_CONTROL_VALID);
	assert_int_equal(v.policy_epoch, 100);
	assert_float_equal(1e9 / (double)v.target_period_ns, 30.3, 0.3);
	assert_true(ipc_control_read(f->g[1].shm.control, &v));
	assert_float_equal(1e9 / (double)v.target_period_ns, 60.6, 0.6);
	assert_float_equal(f->g[0].t->core.fps, 30.3, 0.3);

	/* GPU: 2 ms per frame at ~30 and ~60 FPS, about 6% + 12%. */
	assert_float_equal(f->g[0].t->gpu_share, 0.0606, 0.01);
	assert_float_equal(f->g[1].t->gpu_share, 0.1212, 0.01);
	assert_float_equal(f->d.gpus[0].gpu.util, 0.18, 0.03);

	json_t *st = daemon_status(&f->d);
	json_t *a = json_array_get(json_object_get(st, "tenants"), 0);
	assert_string_equal(json_string_value(json_object_get(a, "name")), "a");
	assert_int_equal(json_integer_value(json_object_get(a, "pid")), 100);
	assert_float_equal(json_number_value(json_object_get(a, "sla_fps")), 30,
	                   0);
	assert_float_equal(json_number_value(json_object_get(a, "fps")), 30.3,
	                   0.3);
	assert_float_equal(
	    json_number_value(json_object_get(a, "frame_ms_p99")), 33.0, 0.5);
	/* Above its SLA in every whole second. */
	assert_int_equal(json_integer_value(json_object_get(a, "below_sla_s")),
	                 0);
	json_decref(st);
	assert_true(f->d.tick_cost_s > 0.0);
}

/* A game that cannot reach its SLA whatever its pacing (it runs flat out at
 * 20 FPS): batond reports it limited in status, with the rate it reaches,
 * and its target stays near the reference instead of winding up; the
 * GPU's demand at the SLAs is there too. */
static void test_limited_reported_in_status(void **state)
{
	struct fixture *f = *state;
	add_game(f, 0, "slow", 30);
	for (int e = 0; e < 50; e++)
		epoch(f, 1, 20.0);
	const struct core_tenant *c = &f->g[0].t->core;
	assert_true(c->limited);
	assert_float_equal(c->reach_fps, 20.0, 0.5);
	assert_true(c->target_fps < 30.3 * 1.1);
	json_t *st = daemon_status(&f->d);
	assert_non_null(st);
	json_t *t0 = json_array_get(json_object_get(st, "tenants"), 0);
	assert_true(json_is_true(json_object_get(t0, "limited")));
	assert_float_equal(json_number_value(json_object_get(t0, "reach_fps")),
	                   20.0, 0.5);
	/* every epoch alike: its slow frames are its frames */
	assert_float_equal(
	    json_number_value(json_object_get(t0, "reach_low_fps")), 20.0, 0.5);
	/* 2 ms a frame at 30.3: 6% of the GPU, no overload */
	assert_float_equal(json_number_value(json_object_get(st, "sla_util")),
	                   0.002 * 30.3, 0.01);
	assert_true(json_is_false(json_object_get(st, "overload")));
	json_decref(st);

	/* it gets lighter: it reaches its SLA and is no longer limited */
	for (int e = 0; e < 30; e++)
		epoch(f, 1, 120.0);
	assert_false(c->limited);
}

/* Game 0 held by its budget gate: 30 FPS where its SLA asks 60, each
 * frame's 30-ms wait the gate's but for pace_us of it (the pacer's).
 * batond splits the wait as the record says (shm.h gate_us). */
static void gated_epoch(struct fixture *f, int64_t pace_us)
{
	struct game *g = &f->g[0];
	f->now += 100 * MS;
	const int64_t period = 33333333, wait = 30 * MS;
	while (g->next_present <= f->now) {
		g->seq++;
		struct baton_frame fr = {
		    .present_ns = g->next_present,
		    .cpu_ns = period - wait,
		    .sleep_ns = wait,
		    .gpu_ns = 3 * MS,
		    .gpu_frame = g->seq,
		    .gate_us = (uint32_t)(wait / 1000 - pace_us),
		};
		ipc_ring_push(g->shm.ring, g->shm.records, &fr);
		g->next_present += period;
	}
	daemon_tick(&f->d, f->now);
}

/* A game its gate holds under its SLA: batond takes the gate's share out
 * of the pacing sleep (the core's gate_s), so the tenant is cap-bound,
 * not limited, its target is not wound up and its reach is its rate;
 * status says so (cap_bound), and with a wait that is all the pacer's
 * (gate_us 0) it is paced, not cap-bound. */
static void test_gate_wait_is_cap_bound(void **state)
{
	struct fixture *f = *state;
	add_game(f, 0, "capped", 60);
	for (int e = 0; e < 50; e++)
		gated_epoch(f, 1000);
	const struct core_tenant *c = &f->g[0].t->core;
	assert_float_equal(c->gate_s, 3 * 0.029, 1e-6);
	assert_float_equal(c->sleep_s, 3 * 0.001, 1e-6);
	assert_true(c->cap_bound);
	assert_false(c->limited);
	assert_true(c->target_fps <= 60.6 + 1e-6);
	assert_float_equal(c->reach_fps, 30.0, 0.5);
	json_t *st = daemon_status(&f->d);
	json_t *t0 = json_array_get(json_object_get(st, "tenants"), 0);
	assert_true(json_is_true(json_object_get(t0, "cap_bound")));
	assert_true(json_is_false(json_object_get(t0, "limited")));
	json_decref(st);

	for (int e = 0; e < 10; e++)
		gated_epoch(f, 30000);
	assert_float_equal(c->gate_s, 0.0, 0.0);
	assert_false(c->cap_bound);
}

/* The control block as game i sees it now (asserts a complete one). */
static struct ipc_control_values control(struct fixture *f, int i)
{
	struct ipc_control_values v;
	assert_true(ipc_control_read(f->g[i].shm.control, &v));
	return v;
}

/* Registration writes the target the tenant starts at before any tick:
 * SA's reference, SLA * (1 + sla_margin), whether the SLA is the daemon's
 * default or the tenant's own. The first tick keeps it: the PI loop's
 * feed-forward starts at the reference, so nothing jumps. */
static void test_registration_writes_start_target(void **state)
{
	struct fixture *f = *state;
	daemon_tick(&f->d, f->now); /* a daemon that has been running */
	add_game(f, 0, "a", 0);
	add_game(f, 1, "b", 45);
	struct ipc_control_values a = control(f, 0), b = control(f, 1);
	assert_int_equal(a.flags, BATON_CONTROL_VALID);
	assert_int_equal(a.policy_epoch, 1);
	assert_int_equal(a.target_period_ns, llround(1e9 / (30 * 1.01)));
	assert_int_equal(b.flags, BATON_CONTROL_VALID);
	assert_int_equal(b.target_period_ns, llround(1e9 / (45 * 1.01)));
	json_t *st = daemon_status(&f->d);
	json_t *e = json_array_get(json_object_get(st, "tenants"), 0);
	assert_float_equal(json_number_value(json_object_get(e, "target_fps")),
	                   30.3, 1e-9);
	json_decref(st);

	epoch(f, 2, 120.0);
	assert_int_equal(control(f, 0).policy_epoch, 2);
	assert_int_equal(control(f, 0).target_period_ns, a.target_period_ns);
	assert_int_equal(control(f, 1).target_period_ns, b.target_period_ns);
}

/* A pinned tenant starts at its pin, and under policy "none" a tenant
 * starts unpaced: the block says so (valid, period 0) at once. */
static void test_start_target_pinned_and_none(void **state)
{
	struct fixture *f = *state;
	add_game_fixed(f, 0, "pinned", 30, 20);
	assert_int_equal(control(f, 0).target_period_ns, 50000000);
	f->d.policy = &core_policy_none;
	add_game(f, 1, "free", 30);
	assert_int_equal(control(f, 1).flags, BATON_CONTROL_VALID);
	assert_int_equal(control(f, 1).target_period_ns, 0);
}

static void test_below_sla_seconds_counted(void **state)
{
	struct fixture *f = *state;
	add_game(f, 0, "slow", 30);
	/* It cannot do better than 20 FPS: every second is below its SLA. */
	for (int e = 0; e < 50; e++)
		epoch(f, 1, 20.0);
	/* 5 s of wall time; the last second closes 250 ms after its end. */
	assert_int_equal(f->g[0].t->below_sla_s, 4);
	for (int e = 0; e < 3; e++)
		epoch(f, 1, 20.0);
	assert_int_equal(f->g[0].t->below_sla_s, 5);
}

static void test_pinned_and_none(void **state)
{
	struct fixture *f = *state;
	add_game(f, 0, "a", 30);
	f->g[0].t->fixed_fps = 45;
	epoch(f, 1, 120.0);
	struct ipc_control_values v;
	assert_true(ipc_control_read(f->g[0].shm.control, &v));
	assert_int_equal(v.target_period_ns, 22222222);
	f->g[0].t->fixed_fps = 0;
	f->d.policy = &core_policy_none;
	epoch(f, 1, 120.0);
	assert_true(ipc_control_read(f->g[0].shm.control, &v));
	assert_int_equal(v.target_period_ns, 0);
	assert_int_equal(v.flags, BATON_CONTROL_VALID);
}

static void test_stalled_game_decays(void **state)
{
	struct fixture *f = *state;
	add_game(f, 0, "a", 30);
	for (int e = 0; e < 10; e++)
		epoch(f, 1, 60.0);
	int64_t last = f->g[0].t->last_present_ns;
	/* No frame for 900 ms: F_out falls back to 1 / time since. */
	f->now += 900 * MS;
	f->g[0].next_present = INT64_MAX;
	daemon_tick(&f->d, f->now);
	assert_float_equal(f->g[0].t->core.fps, 1e9 / (double)(f->now - last),
	                   1e-9);
	assert_int_equal(f->g[0].t->core.frames, 0);
}

static void test_corrupt_ring_left_out(void **state)
{
	struct fixture *f = *state;
	add_game(f, 0, "bad", 30);
	add_game(f, 1, "good", 30);
	epoch(f, 2, 60.0);
	/* Head backwards in game 0. */
	atomic_store(&f->g[0].shm.ring->head, 1);
	uint64_t epoch_before;
	struct ipc_control_values v;
	assert_true(ipc_control_read(f->g[0].shm.control, &v));
	epoch_before = v.policy_epoch;
	epoch(f, 1, 60.0);
	assert_true(f->g[0].t->corrupt);
	assert_false(f->g[1].t->corrupt);
	/* Its block is no longer written; the other's is. */
	assert_true(ipc_control_read(f->g[0].shm.control, &v));
	assert_int_equal(v.policy_epoch, epoch_before);
	assert_true(ipc_control_read(f->g[1].shm.control, &v));
	assert_int_equal(v.policy_epoch, epoch_before + 1);
	json_t *st = daemon_status(&f->d);
	assert_int_equal(json_array_size(json_object_get(st, "tenants")), 1);
	json_decref(st);
	daemon_remove_tenant(&f->d, f->g[0].t);
	assert_int_equal(f->d.n_tenants, 1);
	assert_ptr_equal(f->d.tenants[0], f->g[1].t);
}

static void test_period_bounded(void **state)
{
	struct fixture *f = *state;
	add_game(f, 0, "a", 30);
	f->g[0].t->fixed_fps = 0.01; /* 100 s: longer than a record allows */
	epoch(f, 1, 60.0);
	struct ipc_control_values v;
	assert_true(ipc_control_read(f->g[0].shm.control, &v));
	assert_int_equal(v.target_period_ns, IPC_FRAME_MAX_PERIOD_NS);
}

/* Software-rasterized tenants (llvmpipe): the device is the host's CPUs,
 * which a fake /proc/stat shows busy with the tenants' reported time plus
 * `other` of someone else's. ESA's budget leaves that out. */
/* The GPU's host load from a fake /proc/stat (host_stat) from now on. */
static void fake_host(struct fixture *f)
{
	snprintf(f->stat, sizeof(f->stat), "/tmp/baton-test-stat-XXXXXX");
	int fd = mkstemp(f->stat);
	assert_true(fd >= 0);
	close(fd);
	host_load_init(&f->d.gpus[0].host, f->stat);
	f->busy = 5000;
	f->total = 10000;
}

/* One epoch of the fake host: used jiffies of 1000 (summed over CPUs)
 * busy, at most all of them. */
static void host_stat(struct fixture *f, double used)
{
	f->busy += (unsigned long long)(used < 1000.0 ? used : 1000.0);
	f->total += 1000;
	FILE *st = fopen(f->stat, "w");
	assert_non_null(st);
	fprintf(st,
	        "cpu  %llu 0 0 %llu 0 0 0 0 0 0\n"
	        "cpu0 1 2 3 4 5 6 7 8 0 0\n",
	        f->busy, f->total - f->busy);
	fclose(st);
}

static void run_esa_on_host(struct fixture *f, uint32_t flags, double other,
                            int64_t cpu_per_frame)
{
	fake_host(f);
	f->d.policy = &core_policy_esa;
	f->gpu_flags = flags;
	add_game(f, 0, "a", 0);
	add_game(f, 1, "b", 0);
	for (int e = 0; e < 100; e++) {
		f->now += 100 * MS;
		int frames = 0;
		for (int i = 0; i < 2; i++) {
			int n = render(f, i, 500.0, 1 * MS, f->now);
			burn(f, i, n * cpu_per_frame); /* its threads' */
			frames += n;
		}
		/* 1 ms per frame over a 100 ms epoch, and the host's CPUs
		 * are never more than all busy */
		host_stat(f, frames * 10.0 + other * 1000.0);
		daemon_tick(&f->d, f->now);
	}
}

static void test_esa_leaves_out_load_no_tenant_reports(void **state)
{
	struct fixture *f = *state;
	run_esa_on_host(f, BATON_FRAME_GPU_SOFTWARE, 0.30, 2 * MS);
	assert_float_equal(f->d.gpus[0].gpu.other_util, 0.30, 0.02);
	/* On a CPU device a game's GPU time is its process's CPU time over
	 * the device's two cores (2 ms a frame over 2: gpu_source "cpu"):
	 * (U - other) / sum k = (0.95 - 0.30) / (2 * 1 ms) */
	assert_int_equal(f->g[0].t->gpu_source, GPU_SOURCE_CPU);
	assert_float_equal(f->d.gpus[0].gpu.common_fps, 325.0, 325.0 * 0.03);
	assert_float_equal(f->g[0].t->core.fps, 325.0, 325.0 * 0.03);
}

static void test_hardware_gpu_has_no_host_load(void **state)
{
	struct fixture *f = *state;
	/* GPU time from timestamps: the host's CPUs are not the device. */
	run_esa_on_host(f, 0, 0.30, 2 * MS);
	assert_float_equal(f->d.gpus[0].gpu.other_util, 0.0, 0.0);
	assert_float_equal(f->d.gpus[0].gpu.common_fps, 475.0, 475.0 * 0.03);
}

/* Whether a GPU is a CPU device is batond's decision, not a record's: on
 * one it knows to be hardware (a render node), records flagged software
 * by processes whose CPU time covers them change nothing: no host load
 * counted as the GPU's, no CPU-only harvesting. */
static void test_software_flag_ignored_on_hardware(void **state)
{
	struct fixture *f = *state;
	struct daemon_gpu *dg = &f->d.gpus[0];
	snprintf(dg->device, sizeof(dg->device), "/dev/dri/renderD128");
	run_esa_on_host(f, BATON_FRAME_GPU_SOFTWARE, 0.30, 2 * MS);
	assert_float_equal(dg->gpu.other_util, 0.0, 0.0);
	assert_false(dg->gpu.harvest.cpu_device);
	assert_float_equal(dg->gpu.common_fps, 475.0, 475.0 * 0.03);
}

/* On a GPU batond cannot identify (the fallback "gpu0"), the flag counts
 * only where the tenant's own CPU time covers what it reports: processes
 * that use none do not make the host's load the GPU's. */
static void test_software_flag_needs_cpu_time(void **state)
{
	struct fixture *f = *state;
	run_esa_on_host(f, BATON_FRAME_GPU_SOFTWARE, 0.30, 0);
	assert_float_equal(f->d.gpus[0].gpu.other_util, 0.0, 0.0);
	assert_false(f->d.gpus[0].gpu.harvest.cpu_device);
	assert_false(f->g[0].t->seen.software);
}

/* One epoch: game 0 at its SLA, 2 ms a frame, its process using twice
 * that; with liar, game 1 claims 33 ms a frame at 30 FPS and uses no
 * CPU. */
static void claims_epoch(struct fixture *f, bool liar)
{
	f->now += 100 * MS;
	int n = render(f, 0, 60.0, 2 * MS, f->now);
	burn(f, 0, n * 4 * MS);
	if (liar)
		render(f, 1, 30.0, 33 * MS, f->now);
	host_stat(f, n * 20.0); /* 2 ms a frame: the host's CPUs */
	daemon_tick(&f->d, f->now);
}

/* A game claiming a whole GPU (33 ms a frame at 30 FPS) while its process
 * uses no CPU: on a CPU device (another tenant's flag borne out) what
 * counts of it is its CPU time, so the capacity answer is the one from
 * before it came, and status shows both what it claimed and what counted
 * (before: load 1.06, no fit). */
static void test_inflated_claims_bounded_on_cpu_device(void **state)
{
	struct fixture *f = *state;
	const struct core_params *p = &f->d.cfg.params;
	fake_host(f);
	add_game(f, 0, "victim", 30);
	f->g[0].flags = BATON_FRAME_GPU_SOFTWARE;
	for (int e = 0; e < 60; e++)
		claims_epoch(f, false);
	struct core_admit alone =
	    core_caps_admit(p, &f->d.gpus[0].gpu, 0.004, 30.0);
	add_game(f, 1, "liar", 30);
	for (int e = 0; e < 60; e++)
		claims_epoch(f, true);
	struct core_admit beside =
	    core_caps_admit(p, &f->d.gpus[0].gpu, 0.004, 30.0);
	printf("alone: load %.3f, %u more; beside the liar: load %.3f, %u "
	       "more\n",
	       alone.load, alone.more, beside.load, beside.more);
	assert_true(alone.fits && alone.more >= 3);
	assert_true(beside.fits);
	assert_int_equal(beside.more, alone.more);
	assert_float_equal(beside.load, alone.load, 0.02);
	assert_float_equal(f->g[1].t->core.k, 0.0, 1e-4);
	json_t *st = daemon_status(&f->d);
	json_t *liar = json_array_get(json_object_get(st, "tenants"), 1);
	assert_float_equal(
	    json_number_value(json_object_get(liar, "claimed_share")), 1.0,
	    0.1);
	assert_float_equal(
	    json_number_value(json_object_get(liar, "gpu_share")), 0.0, 0.01);
	json_decref(st);
}

/* The longest status reply batond can owe: SERVER_MAX_CONNS tenants whose
 * 63-byte names JSON escapes to twice that, and numbers at their longest.
 * It has to fit a connection's backlog (SERVER_MAX_OUT) twice, so that a
 * `baton status --watch` one reply behind is not taken for a peer that
 * does not read. Fields added to status count here too. */
static void test_longest_status_reply_fits(void **state)
{
	struct fixture *f = *state;
	char name[IPC_NAME_MAX];
	memset(name, '"', IPC_NAME_MAX - 1);
	name[IPC_NAME_MAX - 1] = '\0';
	for (int i = 0; i < SERVER_MAX_CONNS; i++) {
		struct ipc_shm shim, mine;
		int fd = ipc_shm_create(1, &shim);
		assert_true(fd >= 0);
		char err[160];
		assert_true(ipc_shm_map(fd, &mine, err, sizeof(err)));
		ipc_shm_unmap(&shim);
		close(fd);
		struct tenant *t =
		    daemon_add_tenant(&f->d, name, INT32_MAX, 1000,
		                      1000.0 / 3.0, 0, &mine, f->now);
		assert_non_null(t);
		t->fixed_fps = 1000.0 / 3.0;
		t->core.target_fps = 1000.0 / 3.0;
		t->core.reach_fps = 1000.0 / 3.0;
		t->gpu_share = 1.0 / 3.0;
		t->below_sla_s = INT64_MAX;
		t->cap = 1.0 / 3.0;
		t->core.caps.budget = 1.0 / 3.0;
		t->core.caps.u = 1.0 / 3.0;
		t->core.caps.sampled = true;
	}
	f->d.gpus[0].gpu.util = 1.0 / 3.0;
	char *line = ipc_msg_encode(daemon_status(&f->d));
	assert_non_null(line);
	size_t len = strlen(line);
	free(line);
	/* fps and frame_ms_p99 are 0 here (no frames): give them their
	 * longest form, %.17g's 24 characters, too. */
	len += (size_t)SERVER_MAX_CONNS * 2 * 24;
	printf("longest status reply: %zu bytes for %d tenants\n", len,
	       SERVER_MAX_CONNS);
	assert_true(2 * len <= SERVER_MAX_OUT);
}

/* Each tick writes the capacity stage's budget into the control block as
 * GPU ns per second: a capped tenant's at once (it joins at the first
 * tick), an uncapped one's 0; a user cap scales its tenants' budgets to fit
 * it; removing the cap writes 0 again, and a departure returns the cap to
 * the pool. */
static void test_tick_writes_budgets(void **state)
{
	struct fixture *f = *state;
	add_game(f, 0, "a", 30);
	add_game(f, 1, "b", 30);
	f->g[0].t->cap = 0.25;
	assert_int_equal(control(f, 0).cap_ns_per_s, 0); /* no tick yet */
	for (int e = 0; e < 20; e++)
		epoch(f, 2, 120.0);
	double budget = f->g[0].t->core.caps.budget;
	assert_float_equal(budget, 0.25, 1e-9); /* light: keeps its cap */
	assert_int_equal(control(f, 0).cap_ns_per_s, 250000000u);
	assert_int_equal(control(f, 1).cap_ns_per_s, 0);

	/* a user cap of 0.3 over two tenants capped 0.25 each */
	static const struct core_owner_cap oc = {.owner = 1000, .cap = 0.3};
	f->d.cfg.user_caps[0] = oc;
	f->d.cfg.n_user_caps = 1;
	f->g[1].t->cap = 0.25;
	for (int e = 0; e < 5; e++)
		epoch(f, 2, 120.0);
	uint32_t a = control(f, 0).cap_ns_per_s, b = control(f, 1).cap_ns_per_s;
	assert_true(a > 0 && b > 0);
	assert_true((double)a + (double)b <= 0.3e9 + 2);
	assert_float_equal((double)a + (double)b, 0.3e9, 2);

	json_t *st = daemon_status(&f->d);
	json_t *t0 = json_array_get(json_object_get(st, "tenants"), 0);
	assert_float_equal(json_number_value(json_object_get(t0, "cap")), 0.25,
	                   0);
	assert_float_equal(json_number_value(json_object_get(t0, "budget")),
	                   (double)a * 1e-9, 1e-6);
	assert_non_null(json_object_get(st, "total_load"));
	assert_true(json_is_false(json_object_get(st, "severe")));
	json_decref(st);

	f->g[1].t->cap = 0.0;
	epoch(f, 2, 120.0);
	assert_int_equal(control(f, 1).cap_ns_per_s, 0);
	assert_int_equal(control(f, 0).cap_ns_per_s, 250000000u);

	double pool = f->d.gpus[0].gpu.caps.pool;
	daemon_remove_tenant(&f->d, f->g[0].t);
	f->g[0].t = NULL;
	assert_float_equal(f->d.gpus[0].gpu.caps.pool, pool + 0.25, 1e-9);
	assert_int_equal(f->d.gpus[0].gpu.caps.quiet, 0);
}

/* A tree for the fdinfo reader (gpu_account.h) beside the fake /proc:
 * ROOT/PID/fd/3 -> a render node, ROOT/PID/fdinfo/3 in amdgpu's format
 * (amdgpu_fdinfo.c's keys) with gfx_ns of busy time; the directories
 * the tenant's uid's (1000), as the kernel gives a process's. */
static void fdinfo_write_on(const char *root, int pid, long long gfx_ns,
                            const char *pdev)
{
	char path[160];
	snprintf(path, sizeof(path), "%s/%d", root, pid);
	mkdir(path, 0755);
	assert_int_equal(chown(path, 1000, 1000), 0);
	snprintf(path, sizeof(path), "%s/%d/fd", root, pid);
	mkdir(path, 0755);
	assert_int_equal(chown(path, 1000, 1000), 0);
	snprintf(path, sizeof(path), "%s/%d/fd/3", root, pid);
	if (symlink("/dev/dri/renderD128", path) != 0)
		assert_int_equal(errno, EEXIST);
	snprintf(path, sizeof(path), "%s/%d/fdinfo", root, pid);
	mkdir(path, 0755);
	assert_int_equal(chown(path, 1000, 1000), 0);
	snprintf(path, sizeof(path), "%s/%d/fdinfo/3", root, pid);
	FILE *fi = fopen(path, "w");
	assert_non_null(fi);
	fprintf(fi,
	        "pos:\t0\nflags:\t02100002\ndrm-driver:\tamdgpu\n"
	        "drm-client-id:\t11\ndrm-pdev:\t%s\n"
	        "drm-engine-gfx:\t%lld ns\n",
	        pdev, gfx_ns);
	fclose(fi);
}

static void fdinfo_write(const char *root, int pid, long long gfx_ns)
{
	fdinfo_write_on(root, pid, gfx_ns, "0000:03:00.0");
}

/* The kernel's count of a game's DRM clients is its GPU time: its k is
 * the fdinfo's 6 ms a frame, not the 2 ms its records claim. When its
 * pid is reused by another process (a different start time in its
 * stat), its fdinfo is no longer read: the shim's claim counts again. */
static void test_fdinfo_source(void **state)
{
	struct fixture *f = *state;
	if (geteuid() != 0)
		skip(); /* the tree must be uid 1000's */
	char root[] = "/tmp/baton-test-fdinfo-XXXXXX";
	assert_non_null(mkdtemp(root));
	snprintf(f->d.cfg.fdinfo_root, sizeof(f->d.cfg.fdinfo_root), "%s",
	         root);
	add_game(f, 0, "a", 30);
	long long gfx = 0;
	fdinfo_write(root, 100, gfx);
	for (int e = 0; e < 40; e++) {
		f->now += 100 * MS;
		int n = render(f, 0, 60.0, 2 * MS, f->now);
		gfx += n * 6 * MS;
		fdinfo_write(root, 100, gfx);
		daemon_tick(&f->d, f->now);
	}
	struct tenant *t = f->g[0].t;
	assert_int_equal(t->gpu_source, GPU_SOURCE_FDINFO);
	assert_float_equal(t->core.k, 0.006, 0.0006);
	json_t *st = daemon_status(&f->d);
	json_t *row = json_array_get(json_object_get(st, "tenants"), 0);
	assert_string_equal(
	    json_string_value(json_object_get(row, "gpu_source")), "fdinfo");
	json_decref(st);
	/* pid 100 now names a process that started later */
	char path[160];
	snprintf(path, sizeof(path), "%s/100/stat", f->proc.root);
	FILE *sf = fopen(path, "w");
	assert_non_null(sf);
	fprintf(sf, "100 (other) S 1 2 3 4 5 6 7 8 9 10 0 0 0 0 20 0 1 0 "
	            "4343 99 7\n");
	fclose(sf);
	f->now += 100 * MS;
	render(f, 0, 60.0, 2 * MS, f->now);
	fdinfo_write(root, 100, gfx + 100 * MS);
	daemon_tick(&f->d, f->now);
	assert_int_equal(t->gpu_source, GPU_SOURCE_SHIM);
	char cmd[96];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	assert_int_equal(system(cmd), 0);
}

/* Two hardware GPUs by PCI slot; games whose hello named none
 * (gpu_open). Game a has no DRM clients at first: it runs on gpu0 with a
 * cap, its dynamic cap taken from gpu0's pool; when its clients show on
 * gpu1's slot, it moves there, once: gpu0 gets its cap back, gpu1 counts
 * it, and its GPU time is the kernel's count there. Game b's clients are
 * on gpu1's slot from the start: it is there after the first tick. */
static void test_pdev_places_open_tenants(void **state)
{
	struct fixture *f = *state;
	if (geteuid() != 0)
		skip(); /* the tree must be uid 1000's */
	char root[] = "/tmp/baton-test-pdev-XXXXXX";
	assert_non_null(mkdtemp(root));
	snprintf(f->d.cfg.fdinfo_root, sizeof(f->d.cfg.fdinfo_root), "%s",
	         root);
	struct daemon_gpu *gpus = f->d.gpus;
	snprintf(gpus[0].pci, sizeof(gpus[0].pci), "0000:03:00.0");
	snprintf(gpus[1].name, sizeof(gpus[1].name), "gpu1");
	snprintf(gpus[1].pci, sizeof(gpus[1].pci), "0000:04:00.0");
	host_load_init(&gpus[1].host, NULL);
	gpus[1].n_cpus = 2;
	f->d.n_gpus = 2;
	add_game(f, 0, "a", 30);
	f->g[0].t->gpu_open = true;
	f->g[0].t->cap = 0.3;
	for (int e = 0; e < 20; e++)
		epoch(f, 1, 60.0);
	struct tenant *a = f->g[0].t;
	assert_int_equal(a->gpu, 0);
	assert_true(a->core.caps.joined);
	double pool = gpus[0].gpu.caps.pool;
	assert_true(pool < 1.0);
	long long gfx = 0;
	for (int e = 0; e < 40 && a->gpu == 0; e++) {
		fdinfo_write_on(root, 100, gfx += 3 * MS, "0000:04:00.0");
		epoch(f, 1, 60.0);
	}
	assert_int_equal(a->gpu, 1);
	assert_false(a->gpu_open);
	assert_int_equal(gpus[0].n_tenants, 0);
	assert_int_equal(gpus[1].n_tenants, 1);
	/* gpu0 got its cap back; gpu1's tick counts it */
	assert_float_equal(gpus[0].gpu.caps.pool, f->d.cfg.params.cap_total,
	                   1e-9);
	assert_int_equal(gpus[0].gpu.caps.joined, 0);
	for (int e = 0; e < 10; e++) {
		fdinfo_write_on(root, 100, gfx += 3 * MS, "0000:04:00.0");
		epoch(f, 1, 60.0);
	}
	assert_int_equal(a->gpu_source, GPU_SOURCE_FDINFO);
	assert_true(a->core.caps.joined);
	assert_true(gpus[1].gpu.caps.pool < 1.0);

	fdinfo_write_on(root, 101, 0, "0000:04:00.0");
	add_game(f, 1, "b", 30);
	f->g[1].t->gpu_open = true;
	/* no controller saw it on gpu0: gpu0's quiet count goes on */
	uint32_t quiet = gpus[0].gpu.caps.quiet;
	assert_true(quiet > 0);
	epoch(f, 2, 60.0);
	assert_int_equal(f->g[1].t->gpu, 1);
	assert_true(gpus[0].gpu.caps.quiet >= quiet);
	assert_int_equal(gpus[1].n_tenants, 2);
	char cmd[96];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	    T(test_sa_settles_on_reference),
	    T(test_limited_reported_in_status),
	    T(test_gate_wait_is_cap_bound),
	    T(test_registration_writes_start_target),
	    T(test_start_target_pinned_and_none),
	    T(test_below_sla_seconds_counted),
	    T(test_pinned_and_none),
	    T(test_stalled_game_decays),
	    T(test_corrupt_ring_left_out),
	    T(test_period_bounded),
	    T(test_esa_leaves_out_load_no_tenant_reports),
	    T(test_hardware_gpu_has_no_host_load),
	    T(test_software_flag_ignored_on_hardware),
	    T(test_software_flag_needs_cpu_time),
	    T(test_inflated_claims_bounded_on_cpu_device),
	    T(test_longest_status_reply_fits),
	    T(test_tick_writes_budgets),
	    T(test_fdinfo_source),
	    T(test_pdev_places_open_tenants),
#undef T
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
