/* A tenant's GPU by its DRM clients' PCI slots (gpu_pdev.h). */
#include "daemon/accounting/gpu_pdev.h"

#include <ctype.h>
#include <stdint.h>
#include <strings.h>

/* n hex digits at *s (at least min, at most max), s moved past them. */
static bool hex_run(const char **s, unsigned min, unsigned max)
{
	unsigned k = 0;
	while (k < max && isxdigit((unsigned char)(*s)[k]))
		k++;
	*s += k;
	return k >= min && !isxdigit((unsigned char)**s);
}

bool gpu_pdev_is_slot(const char *s)
{
	/* the kernel's pci_name(): "%04x:%02x:%02x.%d" */
	return hex_run(&s, 4, 8) && *s++ == ':' && hex_run(&s, 2, 2) &&
	       *s++ == ':' && hex_run(&s, 2, 2) && *s++ == '.' && *s >= '0' &&
	       *s <= '7' && s[1] == '\0';
}

/* The GPU whose PCI slot is pdev, -1 if none. */
static int gpu_of(const char *pdev, const char *const *pci, size_t n_gpus)
{
	for (size_t g = 0; g < n_gpus; g++)
		if (pci[g] && pci[g][0] && strcasecmp(pci[g], pdev) == 0)
			return (int)g;
	return -1;
}

struct gpu_pdev_choice gpu_pdev_choose(const struct gpu_client *c, unsigned n,
                                       const char *const *pci, size_t n_gpus)
{
	struct gpu_pdev_choice r = {.gpu = -1, .bad = -1, .unknown = -1};
	uint64_t best = 0;
	bool tie = false;
	for (size_t g = 0; g < n_gpus; g++) {
		bool on = false;
		uint64_t ns = 0;
		for (unsigned i = 0; i < n; i++) {
			if (!gpu_pdev_is_slot(c[i].pdev) ||
			    gpu_of(c[i].pdev, pci, n_gpus) != (int)g)
				continue;
			on = true;
			ns = c[i].render_ns > UINT64_MAX - ns
			         ? UINT64_MAX
			         : ns + c[i].render_ns;
		}
		if (!on)
			continue;
		if (r.on++ == 0 || ns > best) {
			r.gpu = (int)g;
			best = ns;
			tie = false;
		} else if (ns == best) {
			tie = true;
		}
	}
	for (unsigned i = 0; i < n; i++) {
		bool slot = gpu_pdev_is_slot(c[i].pdev);
		if (!slot && r.bad < 0)
			r.bad = (int)i;
		if (slot && r.unknown < 0 && gpu_of(c[i].pdev, pci, n_gpus) < 0)
			r.unknown = (int)i;
	}
	if (tie)
		r.gpu = -1;
	return r;
}
