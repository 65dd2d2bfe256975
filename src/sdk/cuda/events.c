/* The CUDA gate's timing events (gate.c, timed_launch): one pair per
 * context, made at the context's first gated launch and kept. On an H100
 * a gated empty kernel cost 6-7 us more than a synchronised ungated one
 * (docs/sdk.md, "On a real GPU"), and creating and destroying two events
 * was part of that on every launch.
 *
 * Keyed by cuCtxGetId, not by the CUcontext handle: a destroyed
 * context's handle may come back for a new one, while the id is unique
 * for the life of the program (cuda.h). A destroyed context takes its
 * events with it, so its entry is never used again, nor destroyed (its
 * handles are dead): it only holds its slot. With every slot held, or a
 * driver without cuCtxGetId (before 12.0), each launch makes and frees
 * a pair of its own, as the gate did before. */
#include <stddef.h>

#include "sdk/cuda/gate.h"

/* Contexts a program makes launches in; more fall back to a pair per
 * launch. */
#define KEPT_PAIRS 8

typedef CUresult (*event_create_fn)(CUevent *, unsigned);
typedef CUresult (*event_fn)(CUevent);
typedef CUresult (*ctx_id_fn)(CUcontext, unsigned long long *);

static struct {
	unsigned long long ctx;
	CUevent start, end;
} kept[KEPT_PAIRS];
static size_t n_kept;

static bool make_pair(CUevent *start, CUevent *end)
{
	event_create_fn create = (event_create_fn)cu_real(CU_EVENT_CREATE);
	event_fn destroy = (event_fn)cu_real(CU_EVENT_DESTROY);
	if (!create || !destroy ||
	    create(start, CU_EVENT_DEFAULT) != CUDA_SUCCESS)
		return false;
	/* The end's wait may end blocked (gate.c, wait_end). */
	if (create(end, CU_EVENT_BLOCKING_SYNC) != CUDA_SUCCESS) {
		destroy(*start);
		return false;
	}
	return true;
}

bool cu_ctx_id(unsigned long long *id)
{
	ctx_id_fn ctx_id = (ctx_id_fn)cu_real(CU_CTX_ID);
	/* NULL: the current context */
	return ctx_id && ctx_id(NULL, id) == CUDA_SUCCESS;
}

bool cu_events_get(struct cu_event_pair *p)
{
	unsigned long long id;
	/* the current context is the one the launch goes to */
	if (cu_ctx_id(&id)) {
		for (size_t i = 0; i < n_kept; i++)
			if (kept[i].ctx == id) {
				*p = (struct cu_event_pair){kept[i].start,
				                            kept[i].end, false};
				return true;
			}
		if (n_kept < KEPT_PAIRS) {
			if (!make_pair(&p->start, &p->end))
				return false;
			p->own = false;
			kept[n_kept].ctx = id;
			kept[n_kept].start = p->start;
			kept[n_kept].end = p->end;
			n_kept++;
			return true;
		}
	}
	p->own = true;
	return make_pair(&p->start, &p->end);
}

void cu_events_put(struct cu_event_pair *p)
{
	event_fn destroy = (event_fn)cu_real(CU_EVENT_DESTROY);
	if (!p->own || !destroy)
		return;
	destroy(p->start);
	destroy(p->end);
}

void cu_events_forget(void)
{
	n_kept = 0;
}
