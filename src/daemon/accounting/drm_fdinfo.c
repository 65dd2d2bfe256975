/* The DRM usage-stats parser (drm_fdinfo.h). */
#include "daemon/accounting/drm_fdinfo.h"

#include <string.h>

/* A decimal number of at most 19 digits (no overflow), then optional
 * spaces; *rest the text after them. */
static bool parse_uint(const char *s, const char *end, uint64_t *v,
                       const char **rest)
{
	uint64_t n = 0;
	const char *p = s;
	while (p < end && *p >= '0' && *p <= '9' && p - s < 19)
		n = n * 10 + (uint64_t)(*p++ - '0');
	if (p == s || (p < end && *p >= '0' && *p <= '9'))
		return false;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	*v = n;
	*rest = p;
	return true;
}

static bool unit_is(const char *p, const char *end, const char *unit)
{
	size_t n = strlen(unit);
	return (size_t)(end - p) == n && memcmp(p, unit, n) == 0;
}

/* "N", "N KiB", "N MiB" (the format's memory units; GiB for the future);
 * false for another unit or a product past 2^64. */
static bool parse_bytes(const char *s, const char *end, uint64_t *bytes)
{
	uint64_t v;
	const char *u;
	if (!parse_uint(s, end, &v, &u))
		return false;
	unsigned shift = u == end                 ? 0
	                 : unit_is(u, end, "KiB") ? 10
	                 : unit_is(u, end, "MiB") ? 20
	                 : unit_is(u, end, "GiB") ? 30
	                                          : 99;
	if (shift == 99 || (shift > 0 && v > (UINT64_MAX >> shift)))
		return false;
	*bytes = v << shift;
	return true;
}

static bool parse_hz(const char *s, const char *end, uint64_t *hz)
{
	uint64_t v;
	const char *u;
	if (!parse_uint(s, end, &v, &u))
		return false;
	uint64_t mul = u == end || unit_is(u, end, "Hz")                  ? 1
	               : unit_is(u, end, "kHz") || unit_is(u, end, "KHz") ? 1000
	               : unit_is(u, end, "MHz") ? 1000000
	                                        : 0;
	if (mul == 0 || v > UINT64_MAX / mul)
		return false;
	*hz = v * mul;
	return true;
}

/* [s, end) is a name: printable, no spaces, no NUL. */
static bool printable(const char *s, const char *end)
{
	for (; s < end; s++)
		if ((unsigned char)*s < 0x21 || (unsigned char)*s > 0x7e)
			return false;
	return true;
}

/* The engine named [name, end) (found or added); NULL when it does not
 * fit. */
static struct drm_engine *engine(struct drm_fdinfo *f, const char *name,
                                 const char *end)
{
	size_t n = (size_t)(end - name);
	if (n == 0 || n >= DRM_FDINFO_NAME_MAX || !printable(name, end))
		return NULL;
	for (unsigned i = 0; i < f->n_engines; i++)
		if (strlen(f->engines[i].name) == n &&
		    memcmp(f->engines[i].name, name, n) == 0)
			return &f->engines[i];
	if (f->n_engines == DRM_FDINFO_MAX_ENGINES)
		return NULL;
	struct drm_engine *e = &f->engines[f->n_engines++];
	*e = (struct drm_engine){.capacity = 1};
	memcpy(e->name, name, n);
	e->name[n] = '\0';
	return e;
}

static bool prefix(const char *key, const char *kend, const char *p,
                   const char **rest)
{
	size_t n = strlen(p);
	if ((size_t)(kend - key) <= n || memcmp(key, p, n) != 0)
		return false;
	*rest = key + n;
	return true;
}

static bool copy_text(char *dst, size_t size, const char *s, const char *end)
{
	size_t n = (size_t)(end - s);
	if (n == 0 || n >= size || !printable(s, end))
		return false;
	memcpy(dst, s, n);
	dst[n] = '\0';
	return true;
}

/* The engine lines: "drm-engine-capacity-E", "drm-engine-E",
 * "drm-total-cycles-E", "drm-cycles-E", "drm-maxfreq-E". */
static void engine_line(struct drm_fdinfo *f, const char *k, const char *kend,
                        const char *v, const char *vend)
{
	const char *name;
	uint64_t n;
	const char *u;
	struct drm_engine *e;
	if (prefix(k, kend, "drm-engine-capacity-", &name)) {
		if (parse_uint(v, vend, &n, &u) && u == vend && n >= 1 &&
		    n <= 1024 && (e = engine(f, name, kend)))
			e->capacity = (unsigned)n;
	} else if (prefix(k, kend, "drm-engine-", &name)) {
		if (parse_uint(v, vend, &n, &u) && unit_is(u, vend, "ns") &&
		    (e = engine(f, name, kend))) {
			e->busy_ns = n;
			e->has_busy = true;
		}
	} else if (prefix(k, kend, "drm-total-cycles-", &name)) {
		if (parse_uint(v, vend, &n, &u) && u == vend &&
		    (e = engine(f, name, kend))) {
			e->total_cycles = n;
			e->has_total = true;
		}
	} else if (prefix(k, kend, "drm-cycles-", &name)) {
		if (parse_uint(v, vend, &n, &u) && u == vend &&
		    (e = engine(f, name, kend))) {
			e->cycles = n;
			e->has_cycles = true;
		}
	} else if (prefix(k, kend, "drm-maxfreq-", &name)) {
		if (parse_hz(v, vend, &n) && (e = engine(f, name, kend)))
			e->maxfreq_hz = n;
	}
}

/* Sums a region's bytes into *sum, saturating. */
static void add_bytes(uint64_t *sum, const char *v, const char *vend)
{
	uint64_t b;
	if (parse_bytes(v, vend, &b))
		*sum = b > UINT64_MAX - *sum ? UINT64_MAX : *sum + b;
}

static bool key_is(const char *k, const char *kend, const char *key)
{
	size_t n = strlen(key);
	return (size_t)(kend - k) == n && memcmp(k, key, n) == 0;
}

static void parse_line(struct drm_fdinfo *f, const char *k, const char *kend,
                       const char *v, const char *vend, uint64_t *legacy_mem)
{
	const char *rest;
	uint64_t n;
	if (key_is(k, kend, "drm-driver")) {
		copy_text(f->driver, sizeof(f->driver), v, vend);
	} else if (key_is(k, kend, "drm-pdev")) {
		copy_text(f->pdev, sizeof(f->pdev), v, vend);
	} else if (key_is(k, kend, "drm-client-id")) {
		f->has_client_id =
		    parse_uint(v, vend, &n, &rest) && rest == vend;
		f->client_id = f->has_client_id ? n : 0;
	} else if (prefix(k, kend, "drm-resident-", &rest)) {
		add_bytes(&f->resident_bytes, v, vend);
	} else if (prefix(k, kend, "drm-total-cycles-", &rest)) {
		engine_line(f, k, kend, v, vend);
	} else if (prefix(k, kend, "drm-total-", &rest)) {
		add_bytes(&f->total_bytes, v, vend);
	} else if (prefix(k, kend, "drm-memory-", &rest)) {
		add_bytes(legacy_mem, v, vend);
	} else {
		engine_line(f, k, kend, v, vend);
	}
}

bool drm_fdinfo_parse(const char *text, size_t len, struct drm_fdinfo *out)
{
	*out = (struct drm_fdinfo){0};
	uint64_t legacy_mem = 0;
	const char *p = text, *end = text + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		const char *colon = eol - p < DRM_FDINFO_LINE_MAX
		                        ? memchr(p, ':', (size_t)(eol - p))
		                        : NULL;
		if (colon) {
			const char *v = colon + 1, *vend = eol;
			while (v < vend && (*v == ' ' || *v == '\t'))
				v++;
			while (vend > v &&
			       (vend[-1] == ' ' || vend[-1] == '\t'))
				vend--;
			parse_line(out, p, colon, v, vend, &legacy_mem);
		}
		p = nl ? nl + 1 : end;
	}
	/* amdgpu before 6.7 prints drm-memory-* only */
	if (out->resident_bytes == 0)
		out->resident_bytes = legacy_mem;
	return out->driver[0] != '\0' && out->has_client_id;
}

bool drm_engine_busy_ns(const struct drm_engine *e, uint64_t *ns)
{
	if (e->has_busy) {
		*ns = e->busy_ns / e->capacity;
		return true;
	}
	if (e->has_cycles && e->maxfreq_hz > 0) {
		/* cycles / Hz in ns without overflow: whole seconds, then
		 * the rest */
		uint64_t s = e->cycles / e->maxfreq_hz;
		uint64_t r = e->cycles % e->maxfreq_hz;
		if (s > UINT64_MAX / 1000000000u)
			return false;
		*ns = (s * 1000000000u +
		       (uint64_t)((double)r * 1e9 / (double)e->maxfreq_hz)) /
		      e->capacity;
		return true;
	}
	return false;
}

/* Engine names per driver, from each driver's fdinfo code in the kernel:
 * amdgpu (amdgpu_fdinfo.c: amdgpu_ip_name), i915 (i915_drm_client.c:
 * uabi_class_names), xe (xe_drm_client.c: engine class short names),
 * panthor (one "panthor" engine), msm (one "gpu" engine). */
struct engine_names {
	const char *driver;
	const char *const *render, *const *video;
};
static const char *const amdgpu_render[] = {"gfx", "compute", NULL};
static const char *const amdgpu_video[] = {"dec",  "enc", "enc_1",
                                           "jpeg", "vpe", NULL};
static const char *const i915_render[] = {"render", "compute", NULL};
static const char *const i915_video[] = {"video", "video-enhance", NULL};
static const char *const xe_render[] = {"rcs", "ccs", NULL};
static const char *const xe_video[] = {"vcs", "vecs", NULL};
static const char *const panthor_render[] = {"panthor", NULL};
static const char *const msm_render[] = {"gpu", NULL};
static const char *const none[] = {NULL};
static const struct engine_names drivers[] = {
    {"amdgpu", amdgpu_render, amdgpu_video},
    {"i915", i915_render, i915_video},
    {"xe", xe_render, xe_video},
    {"panthor", panthor_render, none},
    {"msm", msm_render, none},
};

static bool listed(const char *const *names, const char *engine)
{
	for (; *names; names++)
		if (strcmp(*names, engine) == 0)
			return true;
	return false;
}

enum drm_engine_class drm_engine_class(const char *driver, const char *engine)
{
	for (size_t i = 0; i < sizeof(drivers) / sizeof(drivers[0]); i++) {
		if (strcmp(drivers[i].driver, driver) != 0)
			continue;
		if (listed(drivers[i].render, engine))
			return DRM_ENGINE_RENDER;
		if (listed(drivers[i].video, engine))
			return DRM_ENGINE_VIDEO;
		return DRM_ENGINE_OTHER;
	}
	return DRM_ENGINE_OTHER;
}
