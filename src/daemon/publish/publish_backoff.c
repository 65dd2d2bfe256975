/* A publisher peer's back-off (publish_backoff.h). */
#include "daemon/publish/publish_backoff.h"

void publish_backoff_fail(struct publish_backoff *b, int64_t now_ns,
                          int64_t max_ns)
{
	if (b->delay_ns <= 0)
		b->delay_ns = PUBLISH_BACKOFF_MIN_NS;
	else
		b->delay_ns =
		    b->delay_ns > max_ns / 2 ? max_ns : 2 * b->delay_ns;
	if (b->delay_ns > max_ns)
		b->delay_ns = max_ns;
	b->next_ns = now_ns + b->delay_ns;
	b->failures++;
}

void publish_backoff_ok(struct publish_backoff *b)
{
	*b = (struct publish_backoff){0};
}

bool publish_backoff_due(const struct publish_backoff *b, int64_t now_ns)
{
	return now_ns >= b->next_ns;
}
