/* What both SDKs share (include/baton/common.h): the return codes' text
 * and the library's version. */
#include <stddef.h>

#include "baton/be.h"
#include "baton/version.h"

const char *baton_strerror(int code)
{
	switch (code) {
	case BATON_OK:
		return "ok";
	case BATON_EINVAL:
		return "invalid argument";
	case BATON_ESTATE:
		return "call out of order";
	case BATON_ENOMEM:
		return "out of memory";
	case BATON_ESYS:
		return "system error";
	case BATON_ETIMEDOUT:
		return "no window within max_wait_ms";
	default:
		return "unknown error";
	}
}

/* The deprecated name keeps its symbol for programs linked against it. */
const char *baton_be_strerror(int code)
{
	return baton_strerror(code);
}

const char *baton_version(int *major, int *minor, int *patch)
{
	if (major)
		*major = BATON_VERSION_MAJOR;
	if (minor)
		*minor = BATON_VERSION_MINOR;
	if (patch)
		*patch = BATON_VERSION_PATCH;
	return BATON_VERSION;
}
