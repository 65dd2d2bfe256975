/* The shim's clock: CLOCK_MONOTONIC in nanoseconds, the clock of every
 * timestamp the shim records and of the control block's phase. */
#pragma once

#include <stdint.h>

int64_t shim_now_ns(void);
