/* A second preload, loaded after libbaton_gl.so, that wraps getuid the
 * way interposers do: dlsym(RTLD_NEXT, "getuid"). Through a dlsym hook
 * that does not keep glibc's view of the caller, RTLD_NEXT would be
 * resolved after libbaton_gl.so instead of after us, and would find this
 * very function. */
#include <dlfcn.h>
#include <sys/types.h>
#include <unistd.h>

__attribute__((visibility("default"))) uid_t getuid(void)
{
	uid_t (*next)(void) = (uid_t(*)(void))dlsym(RTLD_NEXT, "getuid");
	if (!next || next == getuid)
		return (uid_t)-2; /* would recurse forever */
	return next();
}
