/* Which spin margin (shim_sleep.h) is better: for margins of 0, 50, 100
 * and 200 us and the adaptive one, the error of the wake-up (when
 * shim_sleep_until returned minus when it was asked to) and the CPU the
 * wait burns, at 60 waits a second with 1 ms of "work" between them. The
 * configurations take turns wait by wait, so a noisy neighbour or a burst
 * of hypervisor steal hits them all alike. Prints plain lines:
 *   sleep margin=... late_p50_us=... late_p99_us=... cpu_pct_of_core=...
 * Argument: waits per configuration (default 600, 50 s in all). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>

#include "shim/shim.h"
#include "shim/shim_clock.h"
#include "shim/shim_sleep.h"

#define CONFIGS   5
#define PERIOD_NS 16666667LL

static int64_t thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 600;
	if (n < 10)
		n = 10;
	static const int64_t margins[CONFIGS] = {0, 50000, 100000, 200000, -1};
	struct shim_sleeper s[CONFIGS];
	int64_t *late[CONFIGS], cpu[CONFIGS] = {0};
	for (int c = 0; c < CONFIGS; c++) {
		shim_sleeper_init(&s[c], margins[c]);
		late[c] = malloc((size_t)n * sizeof(int64_t));
		if (!late[c])
			return 1;
	}
	/* As the shim does on the presenting thread. */
	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	int64_t wake = shim_now_ns() + PERIOD_NS;
	for (int i = 0; i < n; i++) {
		for (int c = 0; c < CONFIGS; c++) {
			int64_t c0 = thread_cpu_ns();
			int64_t back = shim_sleep_until(&s[c], wake);
			cpu[c] += thread_cpu_ns() - c0;
			late[c][i] = back - wake;
			/* 1 ms of the app's work, then the next deadline on
			 * the grid (re-anchored if this one was missed). */
			while (shim_now_ns() < back + 1000000)
				;
			wake += PERIOD_NS;
			if (wake < shim_now_ns())
				wake = shim_now_ns() + PERIOD_NS;
		}
	}
	for (int c = 0; c < CONFIGS; c++) {
		qsort(late[c], (size_t)n, sizeof(int64_t), cmp);
		char name[32];
		if (margins[c] < 0)
			snprintf(name, sizeof(name), "adaptive");
		else
			snprintf(name, sizeof(name), "%lldus",
			         (long long)(margins[c] / 1000));
		/* CPU per wait times 60 waits a second. */
		double pct = (double)cpu[c] / n * 60 / 1e9 * 100;
		printf("sleep margin=%-8s late_p50_us=%.1f late_p90_us=%.1f "
		       "late_p99_us=%.1f late_max_us=%.1f cpu_pct_of_core=%.2f "
		       "final_margin_us=%.1f\n",
		       name, late[c][n / 2] / 1e3, late[c][n * 9 / 10] / 1e3,
		       late[c][n * 99 / 100] / 1e3, late[c][n - 1] / 1e3, pct,
		       s[c].margin_ns / 1e3);
		free(late[c]);
	}
	return 0;
}
