/* Space harvesting in a game on a software rasterizer: the shim confines
 * the game's threads to the units batond's control block gives it
 * (ipc/cpu_partition.h; policy in core/harvest_space.h). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "ipc/control.h"

/* Once a frame. v: the control block's last complete read (NULL: none
 * this frame); software: the game renders on a software rasterizer (a
 * hardware GPU's units are not CPUs: nothing is applied). Applies a new
 * partition, re-applies one in force every second (threads started since
 * keep their creator's set), and gives the whole CPU set back when the
 * daemon has not written for PARTITION_STALE_NS (gone or stopped: fail
 * open) or the rasterizer is not a software one. */
void shim_partition_follow(const struct ipc_control_values *v, bool software,
                           int64_t now_ns);

#define PARTITION_STALE_NS 2000000000LL
