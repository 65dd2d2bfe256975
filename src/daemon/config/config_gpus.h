/* batond's `gpus` config list (daemon/gpus.h):
 *   gpus = ( { name = "gpu0"; cpus = "0"; },
 *            { name = "gpu1"; device = "0000:41:00.0"; } );
 * A name each (1 to 31 of [A-Za-z0-9._-], unique); cpus makes it a
 * logical GPU on a software rasterizer (its cores); device names a
 * hardware one (a render node, a PCI slot, an NVML UUID). */
#pragma once

#include <libconfig.h>
#include <stdbool.h>
#include <stddef.h>

#include "daemon/config/config.h"

/* The list into cfg->gpus. false with why (naming the entry) in why. */
bool daemon_config_gpus(struct daemon_config *cfg, const config_setting_t *list,
                        char *why, size_t whylen);
