#include "ipc/quality_name.h"

#include <string.h>

#include "baton/baton.h"
#include "ipc/shm.h"

_Static_assert(BATON_QUALITY_NAME_SIZE == BATON_QUALITY_NAME_MAX + 1,
               "the API's name limit and the shared field agree");

static bool id_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
}

bool ipc_quality_name_ok(const char *s, bool id)
{
	if (!s)
		return false;
	/* a field of the shared area may hold no NUL: look no further */
	size_t n = strnlen(s, BATON_QUALITY_NAME_SIZE);
	if (n == 0 || n == BATON_QUALITY_NAME_SIZE)
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (id ? !id_char((char)c) : (c < 0x20 || c > 0x7e))
			return false;
	}
	return true;
}
