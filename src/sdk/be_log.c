/* Rate-limited log lines and the clock (be_internal.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "sdk/be_internal.h"
#include "util/log_gate.h"

int64_t be_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void be_sleep_until(int64_t t_ns)
{
	if (t_ns <= 0)
		return;
	struct timespec ts = {.tv_sec = t_ns / 1000000000LL,
	                      .tv_nsec = t_ns % 1000000000LL};
	/* Absolute: a signal that interrupts the sleep does not stretch it. */
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	       EINTR)
		;
}

/* One gate per key. A race between threads can only let an extra line
 * through. */
static struct log_gate gates[BE_LOG_KEYS];

void be_log(int key, const char *fmt, ...)
{
	if (key < 0 || key >= BE_LOG_KEYS)
		key = BE_LOG_CALL;
	unsigned held;
	if (!log_gate_take(&gates[key], be_now_ns(), 1000000000LL, &held))
		return;
	char line[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (held)
		fprintf(stderr, "baton-be: %s (%u similar lines held back)\n",
		        line, held);
	else
		fprintf(stderr, "baton-be: %s\n", line);
}
