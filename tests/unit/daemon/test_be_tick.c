/* Best-effort tenants in the daemon's tick, in-process on a virtual clock
 * (docs/harvesting.md, "In batond"): the harvesting stage's budget, window
 * and mode in their control blocks, records of the wrong kind dropped,
 * their GPU time out of the capacity stage's total load, a departure. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/daemon.h"
#include "fake_proc.h"
#include "ipc/control.h"
#include "ipc/ring.h"

#define MS 1000000LL
#define T0 (1000 * 1000 * MS) /* virtual clock starts at 1000 s */

/* A game or a best-effort tenant: its side of the memfd. */
struct peer {
	int fd;
	struct ipc_shm shm;
	struct tenant *t;
	int64_t next_ns;
	uint64_t seq;
	int64_t cpu_ns; /* its process's CPU time in the fake /proc */
};

struct fixture {
	struct daemon d;
	struct peer p[4];
	int64_t now;
	struct fake_proc proc;
};

/* Peer i's process used ns more CPU time (the fake /proc). */
static void burn(struct fixture *f, int i, int64_t ns)
{
	f->p[i].cpu_ns += ns;
	fake_proc_set(&f->proc, 100 + i, f->p[i].cpu_ns);
}

static void map(struct fixture *f, int i, struct ipc_shm *mine)
{
	struct peer *p = &f->p[i];
	p->fd = ipc_shm_create(100 + (uint32_t)i, &p->shm);
	assert_true(p->fd >= 0);
	char err[160];
	assert_true(ipc_shm_map(p->fd, mine, err, sizeof(err)));
	p->next_ns = f->now + 5 * MS;
	burn(f, i, 0); /* its CPU clock starts at registration */
}

static void add_game(struct fixture *f, int i, double sla)
{
	struct ipc_shm mine;
	map(f, i, &mine);
	f->p[i].t = daemon_add_tenant(&f->d, "game", 100 + i, 1000, sla, 0,
	                              &mine, f->now);
	assert_non_null(f->p[i].t);
}

static void add_be(struct fixture *f, int i, double weight, double cap)
{
	struct ipc_shm mine;
	map(f, i, &mine);
	f->p[i].t = daemon_add_be_tenant(&f->d, "matmul", 100 + i, 1000, weight,
	                                 cap, &mine, f->now);
	assert_non_null(f->p[i].t);
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
	for (int i = 0; i < 4; i++)
		if (f->p[i].shm.base) {
			ipc_shm_unmap(&f->p[i].shm);
			close(f->p[i].fd);
		}
	free(f);
	return 0;
}

static struct ipc_control_values control(struct fixture *f, int i)
{
	struct ipc_control_values v;
	assert_true(ipc_control_read(f->p[i].shm.control, &v));
	return v;
}

/* Game i presents until the epoch's end, paced to its control block's
 * period as the shim would (flags: the records' BATON_FRAME_*). */
static void render(struct fixture *f, int i, int64_t gpu_ns, uint32_t flags)
{
	struct peer *p = &f->p[i];
	struct ipc_control_values v = control(f, i);
	int64_t base = 10 * MS; /* 100 FPS unpaced */
	int64_t period = v.target_period_ns > base ? v.target_period_ns : base;
	while (p->next_ns <= f->now) {
		struct baton_frame fr = {
		    .present_ns = p->next_ns,
		    .cpu_ns = base / 2,
		    .sleep_ns = period - base,
		    .target_period_ns = v.target_period_ns,
		    .gpu_ns = gpu_ns,
		    .gpu_frame = ++p->seq,
		    .flags = flags,
		};
		ipc_ring_push(p->shm.ring, p->shm.records, &fr);
		p->next_ns += period;
	}
}

/* A best-effort tenant's sub-launches over the epoch: every 10 ms, one of
 * gpu_ns that did `units` blocks after waiting wait_ns (flags as given:
 * BATON_FRAME_BE unless a test writes the wrong kind). */
static void launch(struct fixture *f, int i, int64_t gpu_ns, int64_t wait_ns,
                   int64_t units, uint32_t flags)
{
	struct peer *p = &f->p[i];
	while (p->next_ns <= f->now) {
		struct baton_frame fr = {
		    .present_ns = p->next_ns,
		    .cpu_ns = units,
		    .sleep_ns = wait_ns,
		    .gpu_ns = gpu_ns,
		    .gpu_frame = ++p->seq,
		    .flags = flags,
		};
		ipc_ring_push(p->shm.ring, p->shm.records, &fr);
		p->next_ns += 10 * MS;
	}
}

static void tick(struct fixture *f)
{
	f->now += 100 * MS;
	daemon_tick(&f->d, f->now);
}

/* Alone: VALID with no budget or window until the first tick; then a
 * budget of 1 - util_margin, the continuous window once enter_quiet (3)
 * quiet ticks have passed, periodical before. Status and the control
 * block agree. */
static void test_alone_goes_continuous(void **state)
{
	struct fixture *f = *state;
	add_be(f, 0, 1, 0);
	struct ipc_control_values v = control(f, 0);
	assert_int_equal(v.flags, BATON_CONTROL_VALID);
	assert_int_equal(v.cap_ns_per_s, 0);
	assert_int_equal(v.be_window_ns, 0);
	assert_int_equal(v.target_period_ns, 0);

	const struct core_harvest_params *hp = &f->d.harvest;
	for (int e = 1; e <= 3; e++) {
		tick(f);
		v = control(f, 0);
		assert_float_equal(v.cap_ns_per_s * 1e-9, 1 - hp->util_margin,
		                   1e-9);
		bool cont = (v.flags & BATON_CONTROL_BE_CONTINUOUS) != 0;
		assert_int_equal(cont, e >= 3);
		assert_true(v.flags & BATON_CONTROL_VALID);
		/* no game: the window is continuous_s in either mode (no
		 * periodical cap by default) */
		assert_float_equal(v.be_window_ns * 1e-9, hp->continuous_s,
		                   1e-9);
	}
	json_t *st = daemon_status(&f->d);
	assert_int_equal(json_array_size(json_object_get(st, "tenants")), 0);
	json_t *b = json_array_get(json_object_get(st, "be"), 0);
	assert_string_equal(json_string_value(json_object_get(b, "kind")),
	                    "be");
	assert_string_equal(json_string_value(json_object_get(b, "mode")),
	                    "continuous");
	assert_float_equal(json_number_value(json_object_get(b, "budget")),
	                   0.95, 1e-9);
	assert_float_equal(json_number_value(json_object_get(b, "window_ms")),
	                   17.0, 1e-9);
	json_decref(st);
}

/* A game presenting frames: periodical, and the window is Eq. 1 from the
 * game's reported GPU time (1/F - H - margin, F its target); the budget is
 * what the game leaves less the margin. The tenant's own work shows in
 * status: units/s, GPU share, wait. */
static void test_game_makes_it_periodical(void **state)
{
	struct fixture *f = *state;
	add_game(f, 0, 30);
	add_be(f, 1, 1, 0);
	for (int e = 0; e < 30; e++) {
		f->now += 100 * MS;
		render(f, 0, 4 * MS, 0);
		launch(f, 1, 5 * MS, 2 * MS, 3, BATON_FRAME_BE);
		daemon_tick(&f->d, f->now);
		struct ipc_control_values v = control(f, 1);
		assert_false(v.flags & BATON_CONTROL_BE_CONTINUOUS);
	}
	const struct tenant *g = f->p[0].t;
	double F = g->core.target_fps, H = g->core.k;
	assert_float_equal(H, 0.004, 1e-6); /* the records' GPU time */
	assert_float_equal(F, 30.3, 0.3);
	struct ipc_control_values v = control(f, 1);
	double want = 1.0 / F - 0.004 - f->d.harvest.margin_s;
	assert_float_equal(v.be_window_ns * 1e-9, want, 1e-6);
	assert_float_equal(v.cap_ns_per_s * 1e-9,
	                   1.0 - 0.004 * F - f->d.harvest.util_margin, 1e-6);
	/* the game's control block is a game's: no window */
	assert_int_equal(control(f, 0).be_window_ns, 0);

	const struct tenant *b = f->p[1].t;
	assert_float_equal(b->be_state.units_s, 300.0, 3.0);   /* 3 / 10 ms */
	assert_float_equal(b->gpu_share, 0.5, 0.01);           /* 5 / 10 ms */
	assert_float_equal(b->be_state.wait_ratio, 0.2, 0.01); /* 2 / 10 */
	assert_true(b->be_state.units > 0);
	/* the game's load is its own: 4 ms at ~30 FPS */
	assert_float_equal(f->d.gpus[0].gpu.util, 0.121, 0.01);

	/* the game stops: continuous after 3 quiet ticks, and back to
	 * periodical on its first frame */
	for (int e = 0; e < 3; e++) {
		f->now += 100 * MS;
		launch(f, 1, 5 * MS, 0, 3, BATON_FRAME_BE);
		daemon_tick(&f->d, f->now);
	}
	assert_true(control(f, 1).flags & BATON_CONTROL_BE_CONTINUOUS);
	f->p[0].next_ns = f->now + 50 * MS;
	f->now += 100 * MS;
	render(f, 0, 4 * MS, 0);
	daemon_tick(&f->d, f->now);
	assert_false(control(f, 1).flags & BATON_CONTROL_BE_CONTINUOUS);
}

/* The slot (core/harvest_slot.h) in the control block: the span before
 * each of the game's Presents in which it waits, less its k at the start
 * and the margin at the end, recurring at its period; none with alignment
 * off or in continuous mode. Status shows its length. */
static void test_slot_in_control_block(void **state)
{
	struct fixture *f = *state;
	add_game(f, 0, 30);
	add_be(f, 1, 1, 0);
	for (int e = 0; e < 30; e++) {
		f->now += 100 * MS;
		render(f, 0, 4 * MS, 0);
		launch(f, 1, 5 * MS, 2 * MS, 3, BATON_FRAME_BE);
		daemon_tick(&f->d, f->now);
	}
	const struct tenant *g = f->p[0].t;
	double period = 1.0 / g->core.target_fps;
	struct ipc_control_values v = control(f, 1);
	/* render(): each frame waits period - 10 ms before Present, in
	 * whole nanoseconds of the period the game was given */
	double wait = (double)(v.be_slot_period_ns - 10 * MS) * 1e-9;
	double margin = f->d.harvest.margin_s;
	assert_float_equal(v.be_slot_period_ns * 1e-9, period, 1e-6);
	assert_float_equal(v.be_slot_len_ns * 1e-9, wait - 0.004 - margin,
	                   1e-4);
	/* an occurrence ends margin before one of the game's Presents */
	double end = (double)(v.be_slot_start_ns + v.be_slot_len_ns) * 1e-9;
	double present = (double)g->last_present_ns * 1e-9;
	double phase = fmod(present - margin - end + 100 * period, period);
	assert_true(fmin(phase, period - phase) < 1e-4);
	json_t *st = daemon_status(&f->d);
	assert_float_equal(json_number_value(json_object_get(st, "slot_ms")),
	                   v.be_slot_len_ns * 1e-6, 1e-3);
	json_decref(st);

	/* An OpenGL game (its hello's "api", requests.c) hands its frame to
	 * the GPU at the real swap, after the wait: the slot is the wait
	 * less the margin at both ends (harvest_slot.c, idle_span). */
	f->p[0].t->work_after_wait = true;
	f->now += 100 * MS;
	render(f, 0, 4 * MS, 0);
	daemon_tick(&f->d, f->now);
	v = control(f, 1);
	assert_float_equal(v.be_slot_len_ns * 1e-9, wait - 2 * margin, 1e-4);
	f->p[0].t->work_after_wait = false;

	/* alignment off: no slot, the window alone */
	f->d.harvest.align = false;
	tick(f);
	assert_int_equal(control(f, 1).be_slot_len_ns, 0);
	f->d.harvest.align = true;
	f->now += 100 * MS;
	render(f, 0, 4 * MS, 0);
	daemon_tick(&f->d, f->now);
	assert_true(control(f, 1).be_slot_len_ns > 0);
	/* the game stops: continuous, no slot */
	for (int e = 0; e < 3; e++)
		tick(f);
	v = control(f, 1);
	assert_true(v.flags & BATON_CONTROL_BE_CONTINUOUS);
	assert_int_equal(v.be_slot_len_ns, 0);
}

/* BATON_FRAME_BE from a game and a frame from a best-effort tenant are
 * dropped and counted; the tenants stay, and only their own kind of
 * record counts. */
static void test_wrong_kind_dropped(void **state)
{
	struct fixture *f = *state;
	add_game(f, 0, 30);
	add_be(f, 1, 1, 0);
	for (int e = 0; e < 10; e++) {
		f->now += 100 * MS;
		render(f, 0, 4 * MS, BATON_FRAME_BE); /* wrong */
		launch(f, 1, 80 * MS, 0, 7, 0);       /* wrong */
		daemon_tick(&f->d, f->now);
	}
	const struct tenant *g = f->p[0].t, *b = f->p[1].t;
	assert_false(g->corrupt || b->corrupt);
	assert_int_equal(f->d.n_tenants, 2);
	assert_true(g->wrong_kind >= 25);          /* ~30 FPS for 1 s */
	assert_true(b->wrong_kind >= 95);          /* one each 10 ms */
	assert_float_equal(g->core.fps, 0.0, 1.0); /* it decays: no frame */
	assert_int_equal(b->be_state.units, 0);
	assert_float_equal(b->gpu_share, 0.0, 0.0);
	assert_float_equal(f->d.gpus[0].gpu.util, 0.0, 0.0);
	json_t *st = daemon_status(&f->d);
	json_t *row = json_array_get(json_object_get(st, "be"), 0);
	assert_int_equal(
	    json_integer_value(json_object_get(row, "bad_records")),
	    (json_int_t)b->wrong_kind);
	json_decref(st);
}

/* n sub-launches of gpu_ns and one block each over the last epoch, as the
 * SDK reports them: the ring header's totals, then the record. */
static void launch_many(struct fixture *f, int i, int n, int64_t gpu_ns)
{
	struct baton_ring *r = f->p[i].shm.ring;
	for (int k = 0; k < n; k++) {
		atomic_fetch_add(&r->be_blocks_total, 1);
		atomic_fetch_add(&r->be_device_ns_total, (uint64_t)gpu_ns);
		struct baton_frame fr = {
		    .present_ns = f->now - 100 * MS + (k + 1) * (100 * MS) / n,
		    .cpu_ns = 1,
		    .gpu_ns = gpu_ns,
		    .gpu_frame = ++f->p[i].seq,
		    .flags = BATON_FRAME_BE,
		};
		ipc_ring_push(r, f->p[i].shm.records, &fr);
	}
}

/* 10000 sub-launches a second overrun the ring (BATON_RING_CAPACITY
 * records) between two ticks: batond counts from the ring header's totals
 * (shm.h), so every block and every ns still counts; what the client did
 * before it registered does not; a total that goes backwards counts
 * nothing, and counting goes on from it. (On an H100, batond counted 255
 * of 2000 launches from the records alone.) */
static void test_totals_count_what_the_ring_lost(void **state)
{
	struct fixture *f = *state;
	struct ipc_shm mine;
	map(f, 0, &mine);
	atomic_store(&f->p[0].shm.ring->be_blocks_total, 5000); /* history */
	atomic_store(&f->p[0].shm.ring->be_device_ns_total, 900 * MS);
	f->p[0].t =
	    daemon_add_be_tenant(&f->d, "cuda", 100, 1000, 1, 0, &mine, f->now);
	assert_non_null(f->p[0].t);
	const struct tenant *t = f->p[0].t;
	for (int e = 0; e < 30; e++) {
		f->now += 100 * MS;
		launch_many(f, 0, 1000, 50000); /* 50 us: half the GPU */
		daemon_tick(&f->d, f->now);
	}
	assert_false(t->corrupt);
	assert_true(t->reader.lost > 0); /* the ring did overrun */
	assert_int_equal(t->be_state.units, 30000);
	assert_float_equal(t->be_state.units_s, 10000.0, 500.0);
	assert_float_equal(t->gpu_share, 0.5, 0.02);
	/* backwards: nothing counts that tick; the next grows from it */
	atomic_store(&f->p[0].shm.ring->be_blocks_total, 1);
	atomic_store(&f->p[0].shm.ring->be_device_ns_total, 1);
	tick(f);
	assert_int_equal(t->be_state.units, 30000);
	f->now += 100 * MS;
	launch_many(f, 0, 10, 50000);
	daemon_tick(&f->d, f->now);
	assert_int_equal(t->be_state.units, 30010);
}

/* On a CPU device (a game's software flag borne out by its CPU time) a
 * host busy with a hog on half of it, and a best-effort tenant whose ring
 * totals claim 90 % of the device while its process uses no CPU: what
 * counts of its claim is its CPU time, so the hog stays the host's
 * unreported load (other_util) for admission, ESA and quality (before:
 * 0, the claim hid it), and status shows what it claimed. */
static void test_inflated_be_totals_bounded(void **state)
{
	struct fixture *f = *state;
	char stat[] = "/tmp/baton-test-stat-XXXXXX";
	int fd = mkstemp(stat);
	assert_true(fd >= 0);
	close(fd);
	host_load_init(&f->d.gpus[0].host, stat);
	add_game(f, 0, 30);
	add_be(f, 1, 1, 0);
	unsigned long long busy = 0, total = 0;
	for (int e = 0; e < 50; e++) {
		f->now += 100 * MS;
		uint64_t seq = f->p[0].seq;
		render(f, 0, 4 * MS, BATON_FRAME_GPU_SOFTWARE);
		burn(f, 0, (int64_t)(f->p[0].seq - seq) * 8 * MS);
		launch_many(f, 1, 10, 9 * MS);
		/* jiffies of 1000 an epoch: the game's 4 ms a frame, the hog
		 * half */
		busy += (f->p[0].seq - seq) * 40 + 500;
		total += 1000;
		FILE *st = fopen(stat, "w");
		assert_non_null(st);
		fprintf(st, "cpu  %llu 0 0 %llu 0 0 0 0 0 0\n", busy,
		        total - busy);
		fclose(st);
		daemon_tick(&f->d, f->now);
	}
	unlink(stat);
	const struct tenant *b = f->p[1].t;
	assert_true(f->d.gpus[0].gpu.harvest.cpu_device);
	assert_float_equal(f->d.gpus[0].gpu.other_util, 0.5, 0.05);
	assert_float_equal(b->gpu_share, 0.0, 0.01);
	assert_float_equal(b->seen.claimed_share, 0.9, 0.05);
	json_t *st = daemon_status(&f->d);
	json_t *row = json_array_get(json_object_get(st, "be"), 0);
	assert_float_equal(
	    json_number_value(json_object_get(row, "claimed_share")), 0.9,
	    0.05);
	json_decref(st);
}

/* G6's total load leaves the best-effort tenants' GPU time out: it is the
 * idle time they harvest. A game at ~12 % and a BE tenant at 80 % make a
 * total load near the game's alone (were it counted: 0.92, which stops
 * admission at U_l 0.7). */
static void test_total_load_leaves_out_be(void **state)
{
	struct fixture *f = *state;
	add_game(f, 0, 30);
	add_be(f, 1, 1, 0);
	for (int e = 0; e < 30; e++) {
		f->now += 100 * MS;
		render(f, 0, 4 * MS, 0);
		launch(f, 1, 8 * MS, 0, 1, BATON_FRAME_BE);
		daemon_tick(&f->d, f->now);
	}
	assert_true(f->d.gpus[0].gpu.caps.sampled);
	assert_float_equal(f->p[1].t->gpu_share, 0.8, 0.01);
	assert_float_equal(f->d.gpus[0].gpu.caps.total_load, 0.121, 0.02);
	struct core_admit a =
	    core_caps_admit(&f->d.cfg.params, &f->d.gpus[0].gpu, 0.005, 30);
	assert_true(a.fits);
}

/* Two by weight 3:1 share the budget 3:1 and the window 3:1; a cap binds
 * and what it leaves goes to the other; when one goes, the other's budget
 * is recomputed at the next tick. */
static void test_weights_caps_and_departure(void **state)
{
	struct fixture *f = *state;
	add_be(f, 0, 3, 0);
	add_be(f, 1, 1, 0);
	tick(f);
	double free = 1.0 - f->d.harvest.util_margin;
	assert_float_equal(control(f, 0).cap_ns_per_s * 1e-9, free * 0.75,
	                   1e-9);
	assert_float_equal(control(f, 1).cap_ns_per_s * 1e-9, free * 0.25,
	                   1e-9);
	assert_float_equal(control(f, 0).be_window_ns * 1e-9,
	                   f->d.harvest.continuous_s * 0.75, 1e-9);
	f->p[0].t->cap = 0.1;
	tick(f);
	assert_float_equal(control(f, 0).cap_ns_per_s * 1e-9, 0.1, 1e-9);
	assert_float_equal(control(f, 1).cap_ns_per_s * 1e-9, free - 0.1, 1e-9);
	f->p[1].t->be_state.weight = 9; /* baton set weight=9 */
	tick(f);
	assert_float_equal(control(f, 1).be_window_ns * 1e-9,
	                   f->d.harvest.continuous_s * 0.75, 1e-9);

	daemon_remove_tenant(&f->d, f->p[1].t);
	f->p[1].t = NULL;
	assert_int_equal(f->d.n_be, 1);
	f->p[0].t->cap = 0.0;
	tick(f);
	assert_float_equal(control(f, 0).cap_ns_per_s * 1e-9, free, 1e-9);
	assert_float_equal(control(f, 0).be_window_ns * 1e-9,
	                   f->d.harvest.continuous_s, 1e-9);
}

/* A wait longer than a frame's 10 s bound is a valid record; batond counts
 * at most the time since the tenant's last record of it, spread over the
 * epochs after, so the wait ratio never passes 1. */
static void test_long_wait_bounded(void **state)
{
	struct fixture *f = *state;
	add_be(f, 0, 1, 0);
	struct peer *p = &f->p[0];
	f->now += 2000 * MS;
	struct baton_frame fr = {
	    .present_ns = f->now - 10 * MS,
	    .cpu_ns = 1,
	    .sleep_ns = 3600LL * 1000 * MS, /* "an hour" */
	    .gpu_ns = 1 * MS,
	    .gpu_frame = ++p->seq,
	    .flags = BATON_FRAME_BE,
	};
	ipc_ring_push(p->shm.ring, p->shm.records, &fr);
	daemon_tick(&f->d, f->now);
	assert_false(p->t->corrupt);
	const struct tenant_be *b = &p->t->be_state;
	assert_true(b->wait_ratio <= 1.0);
	/* at most the ~2 s since registration is carried */
	assert_true(b->wait_carry_s <= 2.0);
	for (int e = 0; e < 40; e++)
		tick(f);
	assert_true(b->wait_ratio <= 1.0);
	assert_float_equal(b->wait_carry_s, 0.0, 0.0);
}

/* The idle-priority lane (core/harvest_idle.h): with the harvest group's
 * idle_lane on, a tenant whose hello asked for it gets the IDLE flag, the
 * continuous window, a budget of the whole device and no slot; one that
 * did not keeps the time rules (a slot, the split budget). Status says
 * which. With the key off nobody is in the lane. */
static void test_idle_lane(void **state)
{
	struct fixture *f = *state;
	add_game(f, 0, 30);
	add_be(f, 1, 1, 0);
	add_be(f, 2, 1, 0);
	f->p[1].t->be_state.core.idle_capable = true;
	for (int lane = 0; lane < 2; lane++) {
		f->d.harvest.idle_lane = lane;
		for (int e = 0; e < 30; e++) {
			f->now += 100 * MS;
			render(f, 0, 4 * MS, 0);
			launch(f, 1, 5 * MS, 2 * MS, 3, BATON_FRAME_BE);
			launch(f, 2, 5 * MS, 2 * MS, 3, BATON_FRAME_BE);
			daemon_tick(&f->d, f->now);
		}
		struct ipc_control_values in = control(f, 1);
		struct ipc_control_values out = control(f, 2);
		assert_false(out.flags & BATON_CONTROL_BE_IDLE);
		assert_true(out.be_slot_len_ns > 0);
		assert_true(out.cap_ns_per_s < 500000000u);
		assert_int_equal(!!(in.flags & BATON_CONTROL_BE_IDLE), lane);
		if (lane) {
			assert_int_equal(
			    in.be_window_ns,
			    llround(f->d.harvest.continuous_s * 1e9));
			assert_int_equal(in.cap_ns_per_s, 1000000000u);
			assert_int_equal(in.be_slot_len_ns, 0);
		} else {
			assert_int_equal(in.cap_ns_per_s, out.cap_ns_per_s);
			assert_true(in.be_slot_len_ns > 0);
		}
		json_t *st = daemon_status(&f->d);
		json_t *be = json_object_get(st, "be");
		assert_int_equal(json_array_size(be), 2);
		for (size_t i = 0; i < 2; i++) {
			json_t *t = json_array_get(be, i);
			bool mine =
			    json_integer_value(json_object_get(t, "id")) ==
			    (json_int_t)f->p[1].t->id;
			assert_int_equal(
			    json_is_true(json_object_get(t, "idle_lane")),
			    mine && lane);
		}
		json_decref(st);
	}
}

/* Two games presenting 10 ms apart at one period, and a best-effort
 * tenant in the slot: the second game's control block carries
 * BATON_CONTROL_PHASE and, as its phase, the first game's next Present
 * plus its busy span (render(): 10 ms of the period not waiting, and a
 * k of 4 ms draining) and the margin; the first (the leader) none, and
 * status says which is steered. The games render on a software
 * rasterizer (BATON_FRAME_GPU_SOFTWARE, borne out by their processes'
 * CPU time): on a GPU nobody is steered. Not
 * with steering off either, nor with the tenant in the idle lane (it does
 * not use the slot). */
static void test_phase_steering(void **state)
{
	struct fixture *f = *state;
	add_game(f, 0, 30);
	add_game(f, 1, 30);
	add_be(f, 2, 1, 0);
	f->p[1].next_ns += 10 * MS;
	for (int round = 0; round < 4; round++) {
		f->d.harvest.steer = round != 1;
		f->p[2].t->be_state.core.idle_capable = round == 2;
		f->d.harvest.idle_lane = round == 2;
		uint32_t flags = round == 3 ? 0 : BATON_FRAME_GPU_SOFTWARE;
		for (int e = 0; e < 30; e++) {
			f->now += 100 * MS;
			uint64_t seq[2] = {f->p[0].seq, f->p[1].seq};
			render(f, 0, 4 * MS, flags);
			render(f, 1, 4 * MS, flags);
			launch(f, 2, 5 * MS, 2 * MS, 3, BATON_FRAME_BE);
			/* the CPU time their reports say: 4 ms of the device a
			 * frame is 8 ms of CPU on its two cores (a game's GPU
			 * time on a CPU device: gpu_source "cpu") */
			for (int i = 0; i < 2; i++)
				burn(f, i,
				     (int64_t)(f->p[i].seq - seq[i]) * 8 * MS);
			burn(f, 2, 100 * MS);
			daemon_tick(&f->d, f->now);
		}
		struct ipc_control_values lead = control(f, 0);
		struct ipc_control_values follow = control(f, 1);
		assert_false(lead.flags & BATON_CONTROL_PHASE);
		json_t *st = daemon_status(&f->d);
		json_t *games = json_object_get(st, "tenants");
		assert_false(json_is_true(
		    json_object_get(json_array_get(games, 0), "steered")));
		bool on = round == 0;
		assert_int_equal(!!(follow.flags & BATON_CONTROL_PHASE), on);
		assert_int_equal(json_is_true(json_object_get(
		                     json_array_get(games, 1), "steered")),
		                 on);
		json_decref(st);
		if (!on)
			continue;
		/* the leader's next Present after the tick, then its 14 ms
		 * and the margin */
		const struct tenant *g = f->p[0].t;
		assert_true(g->core.target_fps > 0);
		int64_t period = llround(1e9 / g->core.target_fps);
		int64_t after = 14 * MS + llround(f->d.harvest.margin_s * 1e9);
		int64_t ahead = follow.present_phase_ns - g->last_present_ns;
		int64_t m = (ahead - after + period / 2) / period;
		assert_true(m >= 1);
		assert_true(llabs(ahead - after - m * period) < MS / 2);
		assert_true(follow.present_phase_ns - after > f->now);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	    T(test_alone_goes_continuous),
	    T(test_inflated_be_totals_bounded),
	    T(test_game_makes_it_periodical),
	    T(test_slot_in_control_block),
	    T(test_wrong_kind_dropped),
	    T(test_totals_count_what_the_ring_lost),
	    T(test_total_load_leaves_out_be),
	    T(test_weights_caps_and_departure),
	    T(test_long_wait_bounded),
	    T(test_idle_lane),
	    T(test_phase_steering),
#undef T
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
