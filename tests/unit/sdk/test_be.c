/* The BE SDK (include/baton/be.h) against a fake batond and a fake
 * device: sub-launch sizes follow the window and the fit, offsets cover
 * the task once, the client waits while the window is shut, honours the
 * continuous flag and its budget's rest, falls back to the probe loop
 * when batond refuses or goes away (and registers again), runs GPU grid's
 * hysteresis on its probes, and refuses malformed calls. Timing checks are
 * lower bounds only (a wait is never shorter than asked), which a busy
 * machine cannot break. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "baton/be.h"
#include "fake_batond.h"

#define MS 1000000LL

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void sleep_ns(int64_t ns)
{
	struct timespec ts = {ns / 1000000000LL, ns % 1000000000LL};
	nanosleep(&ts, NULL);
}

/* The fake device: t(n) = 0.1 ms + 1 ms per block. */
static int64_t device_ns(int64_t n)
{
	return 100000 + n * MS;
}

static baton_be *open_with(struct fake_batond *b, int64_t max_wait_ms)
{
	struct baton_be_options o;
	baton_be_options_init(&o);
	o.socket_path = b->sock;
	o.weight = 2.0;
	o.cap = 0.5;
	o.max_wait_ms = max_wait_ms;
	baton_be *be = NULL;
	assert_int_equal(baton_be_open("mm", &o, &be), BATON_OK);
	assert_true(fake_batond_wait(b, 1));
	return be;
}

static void sizes_follow_window_and_fit(void **state)
{
	(void)state;
	struct fake_batond b;
	assert_true(fake_batond_start(&b, FAKE_WELCOME));
	baton_be *be = open_with(&b, 2000);
	assert_non_null(strstr(b.hello, "\"role\":\"be\""));
	assert_non_null(strstr(b.hello, "\"name\":\"mm\""));
	assert_non_null(strstr(b.hello, "\"weight\":2.000000"));
	assert_non_null(strstr(b.hello, "\"cap\":0.500000"));
	fake_batond_control(&b, 10 * MS, 1000000000u, false);

	/* 28 blocks, then 8 of 4: the last 16 samples still hold two
	 * sizes, so the fit sees the slope and the intercept. */
	const int64_t n = 60;
	assert_int_equal(baton_be_task_begin(be, 7, n), BATON_OK);
	/* Expected counts: 1 (no sample), then through the origin
	 * (1.1 ms/block: 9), then the exact line (9.9 / 1: 9), and 4 once
	 * the window is 5 ms. */
	const int64_t want[] = {1, 9, 9, 9, 4, 4};
	int64_t done = 0, off, cnt, stamp[64];
	int launches = 0, r;
	struct baton_ring *ring = b.shm.ring;
	assert_int_equal(atomic_load(&ring->be_inflight_ns), 0);
	while ((r = baton_be_next(be, &off, &cnt)) > 0) {
		assert_int_equal(off, done); /* contiguous, from 0 */
		if (launches < 6)
			assert_int_equal(cnt, want[launches]);
		assert_true(cnt >= 1 && off + cnt <= n);
		/* in flight (shm.h): released now, on the window given */
		stamp[launches] = atomic_load(&ring->be_inflight_ns);
		assert_true(stamp[launches] > 0 && stamp[launches] <= now_ns());
		int64_t w = atomic_load(&ring->be_inflight_window_ns);
		int64_t ww = launches < 4 ? 10 * MS : 5 * MS;
		assert_true(w >= ww - 1 && w <= ww + 1);
		assert_int_equal(baton_be_done(be, off, cnt, device_ns(cnt)),
		                 BATON_OK);
		assert_int_equal(atomic_load(&ring->be_inflight_ns), 0);
		done += cnt;
		if (++launches == 4)
			fake_batond_control(&b, 5 * MS, 1000000000u, false);
	}
	assert_int_equal(r, 0);
	assert_int_equal(done, n);
	struct baton_be_info info = {.size = sizeof info};
	assert_int_equal(baton_be_info(be, &info), BATON_OK);
	assert_true(info.connected);
	assert_int_equal(info.blocks, (uint64_t)n);
	assert_true(info.c0_s > 0.09e-3 && info.c0_s < 0.11e-3);
	assert_true(info.c1_s > 0.99e-3 && info.c1_s < 1.01e-3);

	struct baton_frame rec[64];
	int got = fake_batond_records(&b, rec, 64);
	assert_int_equal(got, launches);
	int64_t blocks = 0;
	for (int i = 0; i < got; i++) {
		assert_int_equal(rec[i].flags, BATON_FRAME_BE);
		assert_int_equal(rec[i].gpu_frame, rec[i].seq);
		assert_int_equal(rec[i].gpu_ns, device_ns(rec[i].cpu_ns));
		assert_int_equal(rec[i].target_period_ns, 0);
		assert_int_equal(rec[i].gate_us, 0);
		assert_true(rec[i].sleep_ns >= 0);
		assert_int_equal(rec[i].present_ns, stamp[i]);
		if (i)
			assert_true(rec[i].present_ns >= rec[i - 1].present_ns);
		blocks += rec[i].cpu_ns;
	}
	assert_int_equal(blocks, n);
	/* and the running totals batond counts from (shm.h) */
	int64_t dev = 0;
	for (int i = 0; i < got; i++)
		dev += rec[i].gpu_ns;
	assert_int_equal(atomic_load(&ring->be_blocks_total), (uint64_t)n);
	assert_int_equal(atomic_load(&ring->be_device_ns_total), (uint64_t)dev);
	/* a task abandoned mid-sub-launch leaves nothing in flight */
	assert_int_equal(baton_be_task_begin(be, 7, 4), BATON_OK);
	assert_int_equal(baton_be_next(be, &off, &cnt), 1);
	assert_true(atomic_load(&ring->be_inflight_ns) > 0);
	assert_int_equal(baton_be_task_begin(be, 7, 4), BATON_OK);
	assert_int_equal(atomic_load(&ring->be_inflight_ns), 0);
	baton_be_close(be);
	fake_batond_stop(&b);
}

/* A task of one block that takes 40 ms under a 10-ms window (a launch
 * the OpenCL gate may not cut): once the fit knows it, its stamp says
 * it is expected to run 40 ms, so batond's stuck rule does not take it
 * for a hung kernel and shut the windows after every launch. */
static void stamp_expects_an_uncut_block(void **state)
{
	(void)state;
	struct fake_batond b;
	assert_true(fake_batond_start(&b, FAKE_WELCOME));
	baton_be *be = open_with(&b, 2000);
	fake_batond_control(&b, 10 * MS, 1000000000u, false);
	struct baton_ring *ring = b.shm.ring;
	int64_t off, cnt;
	for (int i = 0; i < 3; i++) {
		assert_int_equal(baton_be_task_begin(be, 9, 1), BATON_OK);
		assert_int_equal(baton_be_next(be, &off, &cnt), 1);
		assert_int_equal(cnt, 1);
		int64_t w = atomic_load(&ring->be_inflight_window_ns);
		/* the first: no fit yet, the window given */
		int64_t want = i == 0 ? 10 * MS : 40 * MS;
		if (w < want - 1 || w > want + 1)
			fail_msg("launch %d stamped %.3f ms, not %.3f", i,
			         w / 1e6, want / 1e6);
		assert_int_equal(baton_be_done(be, off, cnt, 40 * MS),
		                 BATON_OK);
		assert_int_equal(baton_be_next(be, &off, &cnt), 0);
	}
	/* blocks that fit the window are stamped with the window */
	assert_int_equal(baton_be_task_begin(be, 10, 100), BATON_OK);
	assert_int_equal(baton_be_next(be, &off, &cnt), 1);
	assert_int_equal(baton_be_done(be, off, cnt, device_ns(cnt)), BATON_OK);
	assert_int_equal(baton_be_next(be, &off, &cnt), 1);
	int64_t w = atomic_load(&ring->be_inflight_window_ns);
	assert_true(w >= 10 * MS - 1 && w <= 10 * MS + 1);
	baton_be_close(be);
	fake_batond_stop(&b);
}

/* Thousands of short sub-launches (the CUDA gate's single-launch tasks)
 * overrun the ring; the header's totals still hold every one. */
static void totals_hold_what_the_ring_lost(void **state)
{
	(void)state;
	struct fake_batond b;
	assert_true(fake_batond_start(&b, FAKE_WELCOME));
	baton_be *be = open_with(&b, 2000);
	fake_batond_control(&b, 17 * MS, 1000000000u, true);
	const int launches = 3000;
	int64_t off, cnt;
	for (int i = 0; i < launches; i++) {
		assert_int_equal(baton_be_task_begin(be, 3, 1), BATON_OK);
		assert_int_equal(baton_be_next(be, &off, &cnt), 1);
		assert_int_equal(baton_be_done(be, off, cnt, 5000), BATON_OK);
		assert_int_equal(baton_be_next(be, &off, &cnt), 0);
	}
	struct baton_ring *ring = b.shm.ring;
	assert_int_equal(atomic_load(&ring->head), (uint64_t)launches);
	assert_int_equal(atomic_load(&ring->be_blocks_total),
	                 (uint64_t)launches);
	assert_int_equal(atomic_load(&ring->be_device_ns_total),
	                 (uint64_t)launches * 5000);
	baton_be_close(be);
	fake_batond_stop(&b);
}

/* The slot in pieces: a window longer than periodical_ms (8.5) is cut to
 * even pieces of at most that, and the next piece of the occurrence
 * starts at once while the slot's share of the period (30 of 50 ms: 0.6)
 * is within the budget; at a budget of 0.5 the budget's rest
 * (t (1 - b) / b = 8 ms) holds it. */
static int64_t piece_gap(int64_t budget_ns_per_s, int64_t *window)
{
	struct fake_batond b;
	assert_true(fake_batond_start(&b, FAKE_WELCOME));
	baton_be *be = open_with(&b, 5000);
	const int64_t len = 30 * MS, period = 50 * MS;
	fake_batond_control_slot(&b, 25 * MS, (uint32_t)budget_ns_per_s,
	                         now_ns() + 5 * MS, (uint32_t)len,
	                         (uint32_t)period);
	assert_int_equal(baton_be_task_begin(be, 1, 1000000), BATON_OK);
	int64_t off, cnt, rel[2];
	for (int i = 0; i < 2; i++) {
		assert_int_equal(baton_be_next(be, &off, &cnt), 1);
		rel[i] = atomic_load(&b.shm.ring->be_inflight_ns);
		struct baton_be_info info = {.size = sizeof info};
		baton_be_info(be, &info);
		*window = info.window_ns;
		assert_int_equal(baton_be_done(be, off, cnt, 8 * MS), BATON_OK);
	}
	baton_be_close(be);
	fake_batond_stop(&b);
	return rel[1] - rel[0];
}

static void slot_in_pieces(void **state)
{
	(void)state;
	int64_t w;
	int64_t rested = piece_gap(500000000, &w);
	assert_true(rested >= 8 * MS - MS / 2);
	int64_t at_once = piece_gap(700000000, &w);
	/* even pieces: 30 ms in four of 7.5, not three of 8.5 and 4.5 lost */
	assert_true(w <= 7500000 && w >= 7400000);
	/* a preemption between the two may delay it, not 8 ms' rest */
	if (!(at_once < 5 * MS))
		fail_msg("the second piece came %.2f ms after the first",
		         at_once / 1e6);
}

struct opener {
	struct fake_batond *b;
	int64_t after_ns;
};

static void *open_later(void *arg)
{
	struct opener *o = arg;
	sleep_ns(o->after_ns);
	fake_batond_control(o->b, 10 * MS, 1000000000u, false);
	return NULL;
}

static void waits_while_shut(void **state)
{
	(void)state;
	struct fake_batond b;
	assert_true(fake_batond_start(&b, FAKE_WELCOME));
	baton_be *be = open_with(&b, 60);
	int64_t off, cnt;
	assert_int_equal(baton_be_task_begin(be, 1, 10), BATON_OK);
	/* Registered, nothing written yet: no window. */
	int64_t t0 = now_ns();
	assert_int_equal(baton_be_next(be, &off, &cnt), BATON_ETIMEDOUT);
	assert_true(now_ns() - t0 >= 60 * MS);
	/* Written, window 0; then budget 0. */
	fake_batond_control(&b, 0, 1000000000u, false);
	assert_int_equal(baton_be_next(be, &off, &cnt), BATON_ETIMEDOUT);
	fake_batond_control(&b, 10 * MS, 0, false);
	assert_int_equal(baton_be_next(be, &off, &cnt), BATON_ETIMEDOUT);
	baton_be_close(be);
	fake_batond_stop(&b);

	/* The window opens 40 ms into the wait. */
	assert_true(fake_batond_start(&b, FAKE_WELCOME));
	be = open_with(&b, 5000);
	fake_batond_control(&b, 0, 1000000000u, false);
	assert_int_equal(baton_be_task_begin(be, 1, 10), BATON_OK);
	struct opener op = {&b, 40 * MS};
	pthread_t t;
	t0 = now_ns();
	assert_int_equal(pthread_create(&t, NULL, open_later, &op), 0);
	assert_int_equal(baton_be_next(be, &off, &cnt), 1);
	assert_true(now_ns() - t0 >= 40 * MS);
	pthread_join(t, NULL);
	assert_int_equal(baton_be_done(be, off, cnt, device_ns(cnt)), BATON_OK);
	struct baton_frame rec[4];
	assert_int_equal(fake_batond_records(&b, rec, 4), 1);
	assert_true(rec[0].sleep_ns >= 40 * MS - MS);
	baton_be_close(be);
	fake_batond_stop(&b);
}

static void continuous_and_budget_rest(void **state)
{
	(void)state;
	struct fake_batond b;
	assert_true(fake_batond_start(&b, FAKE_WELCOME));
	baton_be *be = open_with(&b, 5000);
	struct baton_be_info info = {.size = sizeof info};
	int64_t off, cnt;
	/* Periodical, budget 0.5: a sub-launch of 20 ms rests 20 ms. */
	fake_batond_control(&b, 30 * MS, 500000000u, false);
	assert_int_equal(baton_be_task_begin(be, 3, 1000), BATON_OK);
	assert_int_equal(baton_be_next(be, &off, &cnt), 1);
	baton_be_info(be, &info);
	assert_false(info.continuous);
	assert_int_equal(info.window_ns, 30 * MS);
	assert_int_equal(baton_be_done(be, off, cnt, 20 * MS), BATON_OK);
	int64_t t0 = now_ns();
	assert_int_equal(baton_be_next(be, &off, &cnt), 1);
	assert_true(now_ns() - t0 >= 20 * MS - MS / 2);
	assert_int_equal(baton_be_done(be, off, cnt, device_ns(cnt)), BATON_OK);
	/* Continuous: the flag is taken, the window is the daemon's. */
	fake_batond_control(&b, 17 * MS, 1000000000u, true);
	sleep_ns(2 * MS); /* past any rest left */
	assert_int_equal(baton_be_next(be, &off, &cnt), 1);
	baton_be_info(be, &info);
	assert_true(info.continuous);
	assert_int_equal(info.window_ns, 17 * MS);
	assert_int_equal(baton_be_done(be, off, cnt, device_ns(cnt)), BATON_OK);
	baton_be_close(be);
	fake_batond_stop(&b);
}

/* The slot: a periodical sub-launch starts only inside an occurrence
 * (the record's release time), no longer than what is left of it; too
 * little left waits for the next. Timing bounds are one-sided (a late
 * wake-up on a busy machine only moves the start later, or to the next
 * occurrence) with 5 ms for a preemption between the decision and the
 * release. */
static void slot_respected(void **state)
{
	(void)state;
	struct fake_batond b;
	assert_true(fake_batond_start(&b, FAKE_WELCOME));
	baton_be *be = open_with(&b, 5000);
	const int64_t len = 8 * MS, period = 50 * MS, slack = 5 * MS;
	int64_t start = now_ns() + 30 * MS;
	fake_batond_control_slot(&b, 10 * MS, 1000000000u, start, (uint32_t)len,
	                         (uint32_t)period);
	assert_int_equal(baton_be_task_begin(be, 1, 1000), BATON_OK);
	struct baton_be_info info = {.size = sizeof info};
	int64_t off, cnt;
	for (int i = 0; i < 4; i++) {
		assert_int_equal(baton_be_next(be, &off, &cnt), 1);
		baton_be_info(be, &info);
		assert_int_equal(baton_be_done(be, off, cnt, MS), BATON_OK);
		struct baton_frame rec;
		assert_int_equal(fake_batond_records(&b, &rec, 1), 1);
		assert_true(rec.present_ns >= start);
		int64_t in = (rec.present_ns - start) % period;
		if (in >= len + slack || info.window_ns + in > len + slack)
			fail_msg(
			    "sub-launch %d released %.2f ms into a %.0f-ms "
			    "slot with a %.2f-ms window",
			    i, in / 1e6, len / 1e6, info.window_ns / 1e6);
		/* never a sliver: at least half of min(window, slot) */
		assert_true(info.window_ns >= len / 2 && info.window_ns <= len);
		if (i == 1) /* 2 ms left: less than half of 8 */
			sleep_ns(len - 2 * MS - (now_ns() - start) % period);
	}
	baton_be_close(be);
	fake_batond_stop(&b);
}

/* Lost mid-task: the probe loop (periodical, rest 1/F), never free; back
 * under batond once it answers again, waiting for its first word. */
static void lost_daemon_probe_loop(void **state)
{
	(void)state;
	struct fake_batond b;
	assert_true(fake_batond_start(&b, FAKE_WELCOME));
	struct baton_be_options o;
	baton_be_options_init(&o);
	o.socket_path = b.sock;
	o.fps = 20.0; /* rest 50 ms */
	o.max_wait_ms = 100;
	baton_be *be;
	assert_int_equal(baton_be_open("mm", &o, &be), BATON_OK);
	assert_true(fake_batond_wait(&b, 1));
	fake_batond_control(&b, 10 * MS, 1000000000u, false);
	int64_t off, cnt, done = 0;
	assert_int_equal(baton_be_task_begin(be, 1, 50), BATON_OK);
	assert_int_equal(baton_be_next(be, &off, &cnt), 1);
	assert_int_equal(baton_be_done(be, off, cnt, device_ns(cnt)), 0);
	done += cnt;
	fake_batond_drop(&b);
	sleep_ns(5 * MS);
	assert_int_equal(baton_be_next(be, &off, &cnt), 1);
	struct baton_be_info info = {.size = sizeof info};
	baton_be_info(be, &info);
	assert_false(info.connected);
	assert_false(info.continuous);
	assert_int_equal(info.window_ns, 8500000); /* GPU grid's N1 */
	assert_int_equal(off, done);
	assert_int_equal(baton_be_done(be, off, cnt, device_ns(cnt)), 0);
	done += cnt;
	int64_t t0 = now_ns();
	assert_int_equal(baton_be_next(be, &off, &cnt), 1);
	assert_true(now_ns() - t0 >= 50 * MS - MS / 2); /* Sleep(1/F) */
	assert_int_equal(baton_be_done(be, off, cnt, device_ns(cnt)), 0);
	done += cnt;
	/* batond is back (the fake still listens): registered again
	 * within a redial, and then waiting for its word. */
	sleep_ns(300 * MS);
	assert_int_equal(baton_be_next(be, &off, &cnt), BATON_ETIMEDOUT);
	assert_true(fake_batond_wait(&b, 2));
	baton_be_info(be, &info);
	assert_true(info.connected);
	fake_batond_control(&b, 10 * MS, 1000000000u, false);
	int r;
	while ((r = baton_be_next(be, &off, &cnt)) > 0) {
		assert_int_equal(off, done);
		assert_int_equal(baton_be_done(be, off, cnt, device_ns(cnt)),
		                 0);
		done += cnt;
	}
	assert_int_equal(r, 0);
	assert_int_equal(done, 50);
	baton_be_close(be);
	fake_batond_stop(&b);
}

/* A refusal, or a daemon that takes the hello and never answers (given
 * up after half a second): the probe loop, and no second try soon. */
static void refused_or_silent(int answer)
{
	struct fake_batond b;
	assert_true(fake_batond_start(&b, answer));
	struct baton_be_options o;
	baton_be_options_init(&o);
	o.socket_path = b.sock;
	o.fps = 1000.0;
	baton_be *be;
	assert_int_equal(baton_be_open("mm", &o, &be), BATON_OK);
	assert_true(fake_batond_wait(&b, 1));
	int64_t off, cnt, done = 0;
	assert_int_equal(baton_be_task_begin(be, 1, 20), BATON_OK);
	while (baton_be_next(be, &off, &cnt) > 0) {
		assert_int_equal(off, done);
		done += cnt;
		assert_int_equal(baton_be_done(be, off, cnt, device_ns(cnt)),
		                 0);
	}
	assert_int_equal(done, 20);
	struct baton_be_info info = {.size = sizeof info};
	baton_be_info(be, &info);
	assert_false(info.connected);
	assert_int_equal(atomic_load(&b.registered), 1);
	baton_be_close(be);
	fake_batond_stop(&b);
}

static void refused_probe_loop(void **state)
{
	(void)state;
	refused_or_silent(FAKE_REFUSE);
	int64_t t0 = now_ns();
	refused_or_silent(FAKE_SILENT);
	assert_true(now_ns() - t0 >= 500 * MS);
}

/* The fake probe: quick, or 2 ms (over alpha = 1 ms) when the script
 * says busy. */
struct script {
	const char *s; /* 'q' quiet, 'b' busy */
	int i, calls;
};

static int probe(void *user)
{
	struct script *sc = user;
	sc->calls++;
	if (!sc->s)
		return 0;
	char c = sc->s[sc->i] ? sc->s[sc->i++] : 'q';
	if (c == 'b')
		sleep_ns(2 * MS);
	if (c == 'f')
		return -1;
	return 0;
}

/* Algorithm 1's hysteresis: 3 quiet in a row enter continuous, 1 busy
 * leaves; the counter saturates (a long quiet run is left by one busy
 * probe); a failed probe counts busy. */
static void probe_hysteresis(void **state)
{
	(void)state;
	/* Two letters a loop step, the untimed warm-up probe's then the
	 * timed one's: a slow warm-up ("bq") reads quiet, a failed one
	 * ("f") fails the step without a second probe. */
	struct script sc = {.s = "qqqqqqqqqqqq"
	                         "qb"
	                         "qqqqqq"
	                         "f"
	                         "bqqqqq"};
	const char *want = "ppcccc"
	                   "ppp"
	                   "c"
	                   "ppp"
	                   "c";
	struct baton_be_options o;
	baton_be_options_init(&o);
	o.no_daemon = 1;
	o.probe = probe;
	o.probe_user = &sc;
	o.alpha_ns = MS;
	o.fps = 1000.0;
	baton_be *be;
	assert_int_equal(baton_be_open("mm", &o, &be), BATON_OK);
	assert_int_equal(sc.calls, 0); /* alpha given: no calibration */
	assert_int_equal(baton_be_task_begin(be, 1, 1000), BATON_OK);
	for (size_t i = 0; i < strlen(want); i++) {
		int64_t off, cnt;
		assert_int_equal(baton_be_next(be, &off, &cnt), 1);
		struct baton_be_info info = {.size = sizeof info};
		baton_be_info(be, &info);
		assert_int_equal(info.continuous, want[i] == 'c');
		assert_int_equal(info.window_ns,
		                 want[i] == 'c' ? 17 * MS : 8500000);
		assert_int_equal(baton_be_done(be, off, cnt, device_ns(cnt)),
		                 0);
	}
	/* A new task starts periodical (Algorithm 1: count = 0). */
	assert_int_equal(baton_be_task_begin(be, 1, 10), BATON_OK);
	int64_t off, cnt;
	assert_int_equal(baton_be_next(be, &off, &cnt), 1);
	struct baton_be_info info = {.size = sizeof info};
	baton_be_info(be, &info);
	assert_false(info.continuous);
	baton_be_close(be);
}

/* alpha at open: M probes plus a warm-up, a percentile times 1.5. */
static void probe_calibration(void **state)
{
	(void)state;
	struct script sc = {.s = "bbbbbbbbbbbb"};
	struct baton_be_options o;
	baton_be_options_init(&o);
	o.no_daemon = 1;
	o.probe = probe;
	o.probe_user = &sc;
	o.calib_probes = 10;
	baton_be *be;
	assert_int_equal(baton_be_open("mm", &o, &be), BATON_OK);
	assert_int_equal(sc.calls, 11);
	struct baton_be_info info = {.size = sizeof info};
	baton_be_info(be, &info);
	assert_true(info.alpha_ns >= 3 * MS); /* 2 ms x 1.5 at least */
	baton_be_close(be);
	/* A probe that fails while calibrating: no probe at all. */
	struct script bad = {.s = "f"};
	o.probe_user = &bad;
	assert_int_equal(baton_be_open("mm", &o, &be), BATON_OK);
	baton_be_info(be, &info);
	assert_int_equal(info.alpha_ns, 0);
	baton_be_close(be);
}

static void malformed_calls(void **state)
{
	(void)state;
	struct baton_be_options o;
	baton_be_options_init(&o);
	o.no_daemon = 1;
	o.fps = 1000.0;
	baton_be *be = NULL;
	assert_int_equal(baton_be_open(NULL, &o, &be), BATON_EINVAL);
	assert_int_equal(baton_be_open("", &o, &be), BATON_EINVAL);
	char longname[80];
	memset(longname, 'x', sizeof(longname) - 1);
	longname[79] = '\0';
	assert_int_equal(baton_be_open(longname, &o, &be), BATON_EINVAL);
	assert_int_equal(baton_be_open("mm", &o, NULL), BATON_EINVAL);
	o.weight = 0.0;
	assert_int_equal(baton_be_open("mm", &o, &be), BATON_EINVAL);
	o.weight = 1.0;
	o.cap = 1.5;
	assert_int_equal(baton_be_open("mm", &o, &be), BATON_EINVAL);
	o.cap = 0.0;
	assert_int_equal(baton_be_open("mm", &o, &be), BATON_OK);

	int64_t off, cnt;
	assert_int_equal(baton_be_task_begin(NULL, 1, 5), BATON_EINVAL);
	assert_int_equal(baton_be_next(be, &off, &cnt), BATON_ESTATE);
	assert_int_equal(baton_be_task_begin(be, 1, 0), BATON_EINVAL);
	assert_int_equal(baton_be_task_begin(be, 1, -5), BATON_EINVAL);
	assert_int_equal(baton_be_done(be, 0, 1, 1), BATON_ESTATE);
	assert_int_equal(baton_be_task_begin(be, 1, 5), BATON_OK);
	assert_int_equal(baton_be_next(NULL, &off, &cnt), BATON_EINVAL);
	assert_int_equal(baton_be_next(be, NULL, &cnt), BATON_EINVAL);
	assert_int_equal(baton_be_next(be, &off, &cnt), 1);
	assert_int_equal(off, 0);
	assert_int_equal(cnt, 1); /* no sample yet */
	/* Called again before the report. */
	assert_int_equal(baton_be_next(be, &off, &cnt), BATON_ESTATE);
	assert_int_equal(baton_be_done(NULL, 0, 1, 1), BATON_EINVAL);
	assert_int_equal(baton_be_done(be, 1, 1, 1), BATON_EINVAL);
	assert_int_equal(baton_be_done(be, 9, 1, 1), BATON_EINVAL);
	assert_int_equal(baton_be_done(be, 0, 0, 1), BATON_EINVAL);
	assert_int_equal(baton_be_done(be, 0, -1, 1), BATON_EINVAL);
	assert_int_equal(baton_be_done(be, 0, 2, 1), BATON_EINVAL);
	assert_int_equal(baton_be_done(be, 0, 1, device_ns(1)), BATON_OK);
	/* Fewer blocks than given: the next starts where they ended. */
	assert_int_equal(baton_be_next(be, &off, &cnt), 1);
	assert_int_equal(off, 1);
	assert_true(cnt >= 2);
	assert_int_equal(baton_be_done(be, 1, 1, device_ns(1)), BATON_OK);
	int64_t done = 2;
	int r;
	while ((r = baton_be_next(be, &off, &cnt)) > 0) {
		assert_int_equal(off, done);
		done += cnt;
		assert_int_equal(baton_be_done(be, off, cnt, -1), BATON_OK);
	}
	assert_int_equal(r, 0);
	assert_int_equal(done, 5);
	assert_int_equal(baton_be_next(be, &off, &cnt), BATON_ESTATE);
	struct baton_be_info info = {.size = sizeof info};
	assert_int_equal(baton_be_info(be, NULL), BATON_EINVAL);
	assert_int_equal(baton_be_info(be, &info), BATON_OK);
	assert_int_equal(info.blocks, 5);
	assert_string_equal(baton_strerror(BATON_EINVAL), "invalid argument");
	baton_be_close(be);
	baton_be_close(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(sizes_follow_window_and_fit),
	    cmocka_unit_test(waits_while_shut),
	    cmocka_unit_test(continuous_and_budget_rest),
	    cmocka_unit_test(slot_respected),
	    cmocka_unit_test(totals_hold_what_the_ring_lost),
	    cmocka_unit_test(slot_in_pieces),
	    cmocka_unit_test(lost_daemon_probe_loop),
	    cmocka_unit_test(refused_probe_loop),
	    cmocka_unit_test(probe_hysteresis),
	    cmocka_unit_test(probe_calibration),
	    cmocka_unit_test(malformed_calls),
	    cmocka_unit_test(stamp_expects_an_uncut_block),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
