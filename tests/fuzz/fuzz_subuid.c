/* libFuzzer target: batond's reader of the subordinate-uid file
 * (daemon/server/owners.c) on arbitrary bytes, with a fixed table of user names
 * in place of the passwd database. Whatever the bytes: at most
 * OWNERS_MAX_RANGES ranges, sorted and disjoint, none holding uid 0 or
 * (uid_t)-1, and owner_of agrees with a linear search. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/server/owners.h"
#include "util/log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool resolve(const char *name, uid_t *uid)
{
	if (strcmp(name, "alice") != 0 && strcmp(name, "nobody") != 0)
		return false;
	*uid = name[0] == 'a' ? 1000 : 65534;
	return true;
}

static uid_t linear_owner(const struct owner_map *m, uid_t uid)
{
	for (size_t i = 0; i < m->n; i++)
		if (uid >= m->ranges[i].first && uid <= m->ranges[i].last)
			return m->ranges[i].owner;
	return uid;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	log_set_level(LOG_ERROR); /* a warning per bad line is expected */
	struct owner_map m = {0};
	size_t skipped;
	if (!owner_map_parse(&m, (const char *)data, size, "fuzz", resolve,
	                     &skipped))
		return 0;
	if (m.n > OWNERS_MAX_RANGES)
		abort();
	for (size_t i = 0; i < m.n; i++) {
		const struct owner_range *r = &m.ranges[i];
		if (r->first == 0 || r->first > r->last ||
		    r->last == UINT32_MAX ||
		    (i > 0 && m.ranges[i - 1].last >= r->first))
			abort();
	}
	/* Every range's edges and their neighbours, and a few fixed uids. */
	const uid_t fixed[] = {0, 1, 1000, 65534, 100000, (uid_t)-1};
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (owner_of(&m, fixed[i]) != linear_owner(&m, fixed[i]))
			abort();
	for (size_t i = 0; i < m.n && i < 64; i++) {
		const uid_t probe[] = {m.ranges[i].first - 1, m.ranges[i].first,
		                       m.ranges[i].last, m.ranges[i].last + 1};
		for (size_t k = 0; k < 4; k++)
			if (owner_of(&m, probe[k]) !=
			    linear_owner(&m, probe[k]))
				abort();
	}
	owner_map_free(&m);
	return 0;
}
