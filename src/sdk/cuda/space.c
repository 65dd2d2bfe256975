/* Space harvesting's side in the CUDA gate (be_space.c, gpu_fits): when
 * batond gives best-effort work a share of the GPU's SMs
 * (BATON_PARTITION(first, count), units = SMs: harvest.space_units set
 * to the device's SM count), launches that the time windows would hold
 * may run beside the games, but only if the process cannot use more SMs
 * than it was given.
 *
 * No driver call confines a context once it exists. MPS does, from the
 * start: a client's context is limited to the active thread percentage
 * in force when it was made (CUDA_MPS_ACTIVE_THREAD_PERCENTAGE in its
 * environment, or the MPS control daemon's set_active_thread_percentage
 * for its server, which batond sets from the partition:
 * src/daemon/tick/space_mps.c). The driver reports that limit as the
 * context's execution affinity (cuCtxGetExecAffinity,
 * CU_EXEC_AFFINITY_TYPE_SM_COUNT: "number of SMs the context is limited
 * to use", rounded up to what the hardware supports, CUDA 11.4), against
 * the device's CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT. The gate reads
 * both once, at its first launch, in the context it gates: a process
 * limited to fewer SMs than the device has says "partition" in its hello
 * and runs on a partition of at least as many SMs; one that may use them
 * all (no MPS, or 100 %) never does. A partition smaller than the
 * process's limit (the games grew since it started) is not used: its
 * work goes back to the time windows, which give the games the device. */
#include <stdatomic.h>

#include "sdk/be_internal.h"
#include "sdk/cuda/gate.h"

typedef CUresult (*exec_affinity_fn)(CUexecAffinityParam *, CUexecAffinityType);
typedef CUresult (*ctx_device_fn)(CUdevice *);
typedef CUresult (*device_attr_fn)(int *, CUdevice_attribute, CUdevice);

/* The SMs the process's context is limited to; 0: not limited. */
static _Atomic unsigned limit_sms;

static bool fits(uint32_t partition)
{
	unsigned sms = atomic_load(&limit_sms);
	uint32_t given = BATON_PARTITION_COUNT(partition);
	if (sms > 0 && given >= sms)
		return true;
	be_log(BE_LOG_WAIT,
	       "the GPU share given (%u SMs) is smaller than the %u this "
	       "process may use: its launches wait for the time windows",
	       given, sms);
	return false;
}

be_gpu_fits_fn cu_space_fits(void)
{
	exec_affinity_fn affinity =
	    (exec_affinity_fn)cu_real(CU_CTX_EXEC_AFFINITY);
	ctx_device_fn device = (ctx_device_fn)cu_real(CU_CTX_DEVICE);
	device_attr_fn attr = (device_attr_fn)cu_real(CU_DEVICE_ATTRIBUTE);
	CUexecAffinityParam p = {0};
	CUdevice dev;
	int total = 0;
	if (!affinity || !device || !attr ||
	    affinity(&p, CU_EXEC_AFFINITY_TYPE_SM_COUNT) != CUDA_SUCCESS ||
	    device(&dev) != CUDA_SUCCESS ||
	    attr(&total, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev) !=
	        CUDA_SUCCESS)
		return NULL;
	unsigned sms = p.param.smCount.val;
	if (sms == 0 || total <= 0 || sms >= (unsigned)total)
		return NULL;
	atomic_store(&limit_sms, sms);
	return fits;
}
