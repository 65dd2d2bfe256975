/* BATON_VRAM_LIMIT, the per-tenant video-memory limit the Vulkan layer
 * enforces (docs/shim.md, "Video memory limit"), and its SIZE grammar,
 * shared by the layer and `baton run --vram-limit`. libc only. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#define BATON_VRAM_LIMIT_ENV "BATON_VRAM_LIMIT"

/* Parses a whole SIZE: digits with an optional fraction ("1.5"), then an
 * optional unit K, M, G or T (powers of 1024; "KiB", "MiB", "GiB", "TiB"
 * too); no unit means bytes. The same in every locale. False for anything
 * else, for 0 bytes and for sizes past 2^62 bytes. */
bool vram_size_parse(const char *s, uint64_t *out);
