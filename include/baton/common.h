/* What Baton's public headers share (baton.h, the game SDK; be.h, the
 * best-effort SDK): the export macro, the return codes and their text,
 * the library's version, and the rule by which its structs grow.
 *
 * Return codes. Every call that can fail returns BATON_OK or one negative
 * BATON_E* code below, the same family for both SDKs; baton_strerror
 * gives its text.
 *
 * Structs that grow. A struct the caller passes in or has filled
 * (struct baton_be_options, struct baton_be_info) begins with
 * `size_t size`, the caller's sizeof of it. Fields are only ever added at
 * the end, so a program built against an older, smaller struct keeps
 * working with a newer library:
 *   - options (passed in): the library reads the caller's `size` bytes
 *     and takes the defaults for the fields past them. A size under the
 *     first release's, or a larger struct with a nonzero byte past what
 *     this library knows (an option it cannot honour), is BATON_EINVAL.
 *     Fill options with their _init function, which sets size.
 *   - info (filled in): the library writes at most `size` bytes. Set
 *     size = sizeof before the call; 0 is BATON_EINVAL.
 * Arrays of structs (struct baton_object_type) do not grow: a new field
 * comes with a new call. */
#pragma once

#include "baton/version.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define BATON_API             __attribute__((visibility("default")))
#define BATON_DEPRECATED(why) __attribute__((deprecated(why)))
#else
#define BATON_API
#define BATON_DEPRECATED(why)
#endif

#define BATON_OK 0
#define BATON_EINVAL                                                           \
	(-1) /* a NULL pointer, a count, index, option or                      \
	        struct size out of range */
#define BATON_ESTATE                                                           \
	(-2) /* out of order: objects before levels, no                        \
	        task begun, a sub-launch not reported */
#define BATON_ENOMEM    (-3)
#define BATON_ESYS      (-4) /* a system call failed (shared memory) */
#define BATON_ETIMEDOUT (-5) /* no window within max_wait_ms */

/* A short English text for a return code ("unknown error" for others). */
BATON_API const char *baton_strerror(int code);

/* The version of the library loaded at run time, "MAJOR.MINOR.PATCH";
 * each pointer not NULL gets its part. BATON_VERSION (baton/version.h) is
 * the version of the headers a program was built with. */
BATON_API const char *baton_version(int *major, int *minor, int *patch);

#ifdef __cplusplus
}
#endif
