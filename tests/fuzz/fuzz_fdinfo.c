/* libFuzzer target: batond's parser of a tenant process's DRM fdinfo
 * (daemon/accounting/drm_fdinfo.h). The kernel writes the values, but
 * which drivers, how many fds and what the process's fds are is the
 * tenant's to choose, so the text is parsed as hostile. Whatever the
 * bytes: names stay terminated and within bounds, capacities are at
 * least 1, engines at most DRM_FDINFO_MAX_ENGINES, and a busy time
 * derived from an engine is never more than its counters allow. Its
 * drm-pdev through the placement rule (daemon/accounting/gpu_pdev.h):
 * a client places a tenant only on a GPU whose slot it names exactly. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "daemon/accounting/drm_fdinfo.h"
#include "daemon/accounting/gpu_pdev.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct drm_fdinfo f;
	bool ok = drm_fdinfo_parse((const char *)data, size, &f);
	if (ok && (!f.has_client_id || f.driver[0] == '\0'))
		abort();
	if (f.n_engines > DRM_FDINFO_MAX_ENGINES ||
	    memchr(f.driver, '\0', sizeof(f.driver)) == NULL ||
	    memchr(f.pdev, '\0', sizeof(f.pdev)) == NULL)
		abort();
	for (unsigned i = 0; i < f.n_engines; i++) {
		const struct drm_engine *e = &f.engines[i];
		uint64_t ns;
		if (e->capacity < 1 || e->name[0] == '\0' ||
		    memchr(e->name, '\0', sizeof(e->name)) == NULL)
			abort();
		if (drm_engine_busy_ns(e, &ns) && e->has_busy &&
		    ns > e->busy_ns)
			abort();
		(void)drm_engine_class(f.driver, e->name);
	}
	struct gpu_client c = {.render_ns =
	                           f.n_engines ? f.engines[0].busy_ns : 0};
	memcpy(c.pdev, f.pdev, sizeof(c.pdev));
	static const char *const slots[] = {"0000:03:00.0", "0000:04:00.0"};
	struct gpu_pdev_choice ch = gpu_pdev_choose(&c, 1, slots, 2);
	if (ch.gpu >= 0 &&
	    (!gpu_pdev_is_slot(c.pdev) || strcasecmp(c.pdev, slots[ch.gpu])))
		abort();
	if (ch.gpu < 0 && ch.bad < 0 && ch.unknown < 0)
		abort(); /* one client is placed, bad or unknown */
	return 0;
}
