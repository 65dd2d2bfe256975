#include "ipc/json_escape.h"

#include <stdio.h>
#include <string.h>

size_t ipc_json_escape(char *out, size_t len, const char *s)
{
	size_t o = 0;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		char esc[8];
		int n;
		if (c == '"' || c == '\\')
			n = snprintf(esc, sizeof(esc), "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			n = snprintf(esc, sizeof(esc), "\\u%04x", c);
		else
			n = snprintf(esc, sizeof(esc), "%c", c);
		if (o + (size_t)n >= len)
			return 0;
		memcpy(out + o, esc, (size_t)n);
		o += (size_t)n;
	}
	out[o] = '\0';
	return o;
}
