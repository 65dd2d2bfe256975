/* SLA-Aware scheduling, vGASA Algorithm 1: the reference of every game is
 * statically the criterion, so each uses just the GPU its SLA needs and the
 * rest stays free for more tenants. Baton aims sla_margin above the
 * criterion (1% by default) so that frame-time jitter at a window's edge does
 * not put a second under the SLA. A game that cannot reach it even so is
 * reported limited (reach.h) and its target is not wound up. */
#include "core/reach.h"

static void assign_sa(const struct core_params *p, struct core_gpu *gpu,
                      struct core_tenant *t, size_t n)
{
	for (size_t i = 0; i < n; i++)
		t[i].ref_fps = core_sla_ref(p, &t[i]);
}

const struct core_policy core_policy_sa = {
    .name = "sa",
    .summary = "SLA-aware (vGASA Alg. 1): hold every game just above its "
               "SLA",
    .assign = assign_sa,
};
