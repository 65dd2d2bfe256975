/* libFuzzer target: batond's parser of a tenant process's DRM fdinfo
 * (daemon/accounting/drm_fdinfo.h). The kernel writes the values, but
 * which drivers, how many fds and what the process's fds are is the
 * tenant's to choose, so the text is parsed as hostile. Whatever the
 * bytes: names stay terminated and within bounds, capacities are at
 * least 1, engines at most DRM_FDINFO_MAX_ENGINES, and a busy time
 * derived from an engine is never more than its counters allow. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/accounting/drm_fdinfo.h"

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
	return 0;
}
