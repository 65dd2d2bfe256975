#include "status_lookup.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

bool reply_is_error(const char *r, const char *code)
{
	char want[64];
	snprintf(want, sizeof(want), "\"code\":\"%s\"", code);
	return r && strstr(r, "\"error\"") && strstr(r, want);
}

json_t *status_entry(const char *sock, const char *list, long long id)
{
	char *r = client_request(sock, "{\"type\":\"status\"}\n");
	json_t *st = r ? json_loads(r, 0, NULL) : NULL;
	free(r);
	json_t *found = NULL, *t;
	size_t i;
	json_array_foreach(json_object_get(st, list), i, t)
	{
		if (json_integer_value(json_object_get(t, "id")) == id)
			found = json_incref(t);
	}
	json_decref(st);
	return found;
}

double status_number(const char *sock, const char *list, long long id,
                     const char *k)
{
	json_t *t = status_entry(sock, list, id);
	json_t *v = t ? json_object_get(t, k) : NULL;
	double x = v && json_is_number(v) ? json_number_value(v) : -1.0;
	json_decref(t);
	return x;
}
