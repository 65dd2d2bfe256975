/* For the BE SDK tests that link the SDK (not the gates'): opens a client
 * on fake batond b, as a CPU device or not, waiting at most max_wait_ms
 * for a window, and waits for its hello. Include after cmocka.h. */
#pragma once

#include "baton/be.h"
#include "fake_batond.h"

static inline baton_be *fake_be_open(struct fake_batond *b, const char *name,
                                     int cpu_device, int64_t max_wait_ms)
{
	struct baton_be_options o;
	baton_be_options_init(&o);
	o.socket_path = b->sock;
	o.max_wait_ms = max_wait_ms;
	o.cpu_device = cpu_device;
	baton_be *be = NULL;
	assert_int_equal(baton_be_open(name, &o, &be), BATON_OK);
	assert_true(fake_batond_wait(b, 1));
	return be;
}
