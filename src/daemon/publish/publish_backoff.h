/* A publisher peer's back-off: after a failure it waits 0.5 s, doubling
 * up to a maximum, before the next attempt; a success clears it. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#define PUBLISH_BACKOFF_MIN_NS 500000000LL /* 0.5 s */

struct publish_backoff {
	int64_t delay_ns; /* the next failure's wait; 0 = none yet */
	int64_t next_ns;  /* no attempt before this */
	unsigned failures;
};
/* A failure at now: wait delay (0.5 s, doubling up to max_ns). */
void publish_backoff_fail(struct publish_backoff *b, int64_t now_ns,
                          int64_t max_ns);
void publish_backoff_ok(struct publish_backoff *b);
bool publish_backoff_due(const struct publish_backoff *b, int64_t now_ns);
