/* Which of the node's GPUs a tenant renders on, by the kernel's word: the
 * drm-pdev (PCI slot) of each DRM client its process holds
 * (gpu_account.h reads them). batond asks this of a game whose hello
 * named no GPU it has (no BATON_GPU, no device UUID that matched, no core
 * set that holds it): without it such a game stays on the first GPU,
 * whichever it renders on (docs/runtime.md, "Several GPUs").
 *
 * The rule: the GPUs are those whose PCI slot one of its clients names;
 * one such GPU is the answer; of several, the one whose clients have the
 * most render-engine time since they opened (drm-engine-*, in ns; xe's
 * cycles are no time and count 0), where one has strictly the most; a
 * tie answers none, and the tenant stays where it is. A drm-pdev that is
 * no PCI slot, or a slot no GPU has, counts for nothing (the caller logs
 * it). The clients are the tenant's own: the answer moves that tenant
 * only. Pure: no I/O. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "daemon/accounting/gpu_account.h"

struct gpu_pdev_choice {
	int gpu;     /* the GPU (an index of pci), -1 = none */
	unsigned on; /* how many GPUs its clients are on */
	int bad;     /* the first client whose drm-pdev is no PCI slot, -1 */
	int unknown; /* the first whose slot is no GPU's, -1 */
};

/* Whether s is a PCI slot as the kernel names one ("0000:03:00.0": a
 * domain of 4 to 8 hex digits, then bus:device.function). */
bool gpu_pdev_is_slot(const char *s);

/* The GPU that clients c[0..n) render on (the rule above); pci[g]: GPU
 * g's PCI slot ("" = unknown: no client is on it), of n_gpus. */
struct gpu_pdev_choice gpu_pdev_choose(const struct gpu_client *c, unsigned n,
                                       const char *const *pci, size_t n_gpus);
