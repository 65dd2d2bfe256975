/* batond's side of the stuck rule (core/harvest_stuck.h): the client's
 * inflight stamp read from its ring header as hostile input, and one log
 * line when a best-effort tenant becomes stuck and one when it clears. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "daemon/tenant.h"

/* Sets t->be_state.core.inflight_s and inflight_window_s from the ring
 * header (ipc/shm.h): 0 and 0 when nothing is under way or the stamp is
 * out of bounds (a release after now, a window of 0 or over
 * IPC_FRAME_MAX_PERIOD_NS); a release before the tenant's registration
 * counts from the registration. */
void daemon_be_inflight(struct tenant *t, int64_t now_ns);

/* After the harvesting stage: logs the change if t's stuck flag is not
 * was. */
void daemon_be_stuck_log(const struct tenant *t, bool was);
