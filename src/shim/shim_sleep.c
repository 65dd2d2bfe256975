#include "shim/shim_sleep.h"

#include <errno.h>
#include <time.h>

#include "shim/shim.h"
#include "shim/shim_clock.h"

/* The percentile estimate moves up 9 steps when a wake-up is later than
 * the estimate and down 1 step otherwise, so it settles where 9 in 10
 * wake-ups are earlier (a stochastic approximation of the quantile; no
 * history kept). With 2 us steps it climbs the whole margin range in 17
 * slow wake-ups and comes back down in 150 fast ones (2.5 s at 60 FPS). */
#define QUANTILE_STEP_NS 2000
#define QUANTILE_UP      9
/* Headroom above the estimate. */
#define MARGIN_SLACK_NS 20000

void shim_sleeper_init(struct shim_sleeper *s, int64_t margin_ns)
{
	s->adaptive = margin_ns < 0;
	s->margin_ns = s->adaptive ? SHIM_MARGIN_START_NS : margin_ns;
	s->late_ns = s->margin_ns - MARGIN_SLACK_NS;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield");
#endif
}

static void adapt(struct shim_sleeper *s, int64_t latency_ns)
{
	if (latency_ns > s->late_ns)
		s->late_ns += QUANTILE_UP * QUANTILE_STEP_NS;
	else if (s->late_ns > 0)
		s->late_ns -= QUANTILE_STEP_NS;
	/* Past the ceiling the estimate would only take longer to come
	 * back. */
	if (s->late_ns > SHIM_MARGIN_MAX_NS)
		s->late_ns = SHIM_MARGIN_MAX_NS;
	int64_t m = s->late_ns + MARGIN_SLACK_NS;
	if (m < SHIM_MARGIN_MIN_NS)
		m = SHIM_MARGIN_MIN_NS;
	if (m > SHIM_MARGIN_MAX_NS)
		m = SHIM_MARGIN_MAX_NS;
	s->margin_ns = m;
}

int64_t shim_sleep_until(struct shim_sleeper *s, int64_t wake_ns)
{
	int64_t now = shim_now_ns();
	int64_t sleep_end = wake_ns - s->margin_ns;
	if (now < sleep_end) {
		struct timespec ts = {
		    .tv_sec = sleep_end / 1000000000,
		    .tv_nsec = sleep_end % 1000000000,
		};
		/* Absolute, so a signal (EINTR) just resumes the same wait. */
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts,
		                       NULL) == EINTR)
			;
		now = shim_now_ns();
		if (s->adaptive)
			adapt(s, now - sleep_end);
	}
	/* At most margin_ns of spinning: the sleep ended at or after
	 * sleep_end, and a late one leaves less (or nothing) to spin. */
	while (now < wake_ns) {
		cpu_relax();
		now = shim_now_ns();
	}
	return now;
}
