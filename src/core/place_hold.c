/* Placement holds (place_hold.h). */
#include "core/place_hold.h"

/* The slot a new hold of uid's takes: a free one while uid holds fewer
 * than its share and the table has room, else uid's own oldest (the
 * one lapsing first), else the table's oldest. */
static struct core_place_hold *slot_for(struct core_place_holds *hs,
                                        uint32_t uid)
{
	struct core_place_hold *free_slot = NULL, *own = NULL, *any = NULL;
	size_t mine = 0;
	for (size_t i = 0; i < CORE_PLACE_HOLDS_MAX; i++) {
		struct core_place_hold *h = &hs->h[i];
		if (!h->live) {
			if (!free_slot)
				free_slot = h;
			continue;
		}
		if (!any || h->until_ns < any->until_ns)
			any = h;
		if (h->uid != uid)
			continue;
		mine++;
		if (!own || h->until_ns < own->until_ns)
			own = h;
	}
	if (mine >= CORE_PLACE_HOLDS_PER_UID)
		return own;
	return free_slot ? free_slot : any;
}

void core_place_holds_add(struct core_place_holds *hs, uint32_t gpu,
                          uint32_t uid, double load, int64_t now_ns,
                          int64_t hold_ns)
{
	if (hold_ns <= 0)
		return;
	struct core_place_hold *h = slot_for(hs, uid);
	*h = (struct core_place_hold){
	    .live = true,
	    .gpu = gpu,
	    .uid = uid,
	    .load = load > 0.0 ? load : 0.0,
	    .until_ns = now_ns + hold_ns,
	};
}

void core_place_holds_apply(struct core_place_holds *hs, int64_t now_ns,
                            struct core_place_gpu *g, size_t n, uint32_t *held)
{
	for (size_t i = 0; held && i < n; i++)
		held[i] = 0;
	for (size_t i = 0; i < CORE_PLACE_HOLDS_MAX; i++) {
		struct core_place_hold *h = &hs->h[i];
		if (h->live && h->until_ns <= now_ns)
			h->live = false;
		if (!h->live || h->gpu >= n)
			continue;
		g[h->gpu].load += h->load;
		g[h->gpu].tenants++;
		if (held)
			held[h->gpu]++;
	}
}

bool core_place_holds_take(struct core_place_holds *hs, uint32_t gpu,
                           uint32_t uid)
{
	struct core_place_hold *oldest = NULL;
	for (size_t i = 0; i < CORE_PLACE_HOLDS_MAX; i++) {
		struct core_place_hold *h = &hs->h[i];
		if (h->live && h->gpu == gpu && h->uid == uid &&
		    (!oldest || h->until_ns < oldest->until_ns))
			oldest = h;
	}
	if (oldest)
		oldest->live = false;
	return oldest != NULL;
}
