/* Where each tenant's GPU seconds come from, and the device's load no
 * tenant accounts for (tick_account.h). */
#include "daemon/tick/tick_account.h"

#include <math.h>

#include "daemon/accounting/gpu_account.h"
#include "daemon/accounting/gpu_pdev.h"
#include "daemon/accounting/nvml_account.h"
#include "daemon/tick/host_load.h"
#include "ipc/msg.h"
#include "util/log.h"

/* Time constant of other_util's smoothing: /proc/stat counts in 10 ms
 * jiffies, a few per core per epoch. */
#define OTHER_UTIL_SMOOTH_S 1.0

/* The device's busy fraction this epoch as batond reads it: on a CPU
 * device (cpu_device), the host's CPUs' load; on an NVIDIA GPU, NVML's
 * device utilization (nvml_account.h). false when there is none (a
 * hardware GPU without NVML: other_util stays 0). */
static bool device_busy(struct daemon *d, size_t g, bool software, double *busy)
{
	struct daemon_gpu *dg = &d->gpus[g];
	double host;
	bool sampled = host_load_sample(&dg->host, &host);
	if (software) {
		*busy = host;
		return sampled;
	}
	if (!nvml_account_util(d->nvml_acct, g, busy)) {
		dg->gpu.other_util = 0.0;
		return false;
	}
	return true;
}

/* Whatever of the device's load (device_busy) the tenants did not
 * account for is someone else's: the compositor, the stream encoders,
 * every process batond does not know. busy is the tenants' load: on a
 * CPU device their CPU time over cores (what counts of a claim is
 * bounded by their measured CPU time, so a claim cannot hide a load), on
 * an NVIDIA GPU their accounted GPU time (NVML's own samples where it
 * counts them). */
void tick_update_other_util(struct daemon *d, size_t g, bool software,
                            double busy, double dt)
{
	struct daemon_gpu *dg = &d->gpus[g];
	double device;
	if (!device_busy(d, g, software, &device))
		return;
	double other = device - busy;
	if (other < 0.0)
		other = 0.0;
	dg->gpu.other_util += (1.0 - exp(-dt / OTHER_UTIL_SMOOTH_S)) *
	                      (other - dg->gpu.other_util);
}

/* Logs a change of what the kernel's count of t says (gpu_account.h),
 * once per change: counted; no longer counted (its DRM clients closed,
 * it exited); its process is another user's. A tenant that never had DRM
 * clients is not logged: most on a software rasterizer. */
static void log_account(struct tenant *t)
{
	enum gpu_account_state st = t->acct.state, was = t->acct.logged;
	if (st == GPU_ACCOUNT_GONE)
		st = GPU_ACCOUNT_NONE; /* the same to the tenant */
	if (st == was)
		return;
	t->acct.logged = st;
	if (st == GPU_ACCOUNT_OTHER_USER)
		log_warn("tenant %llu \"%s\" pid %d: its /proc directory is "
		         "not uid %u's; its DRM clients are not read, its GPU "
		         "time comes from the next source",
		         (unsigned long long)t->id, t->name, (int)t->pid,
		         (unsigned)t->uid);
	else if (st == GPU_ACCOUNT_OK)
		log_info("tenant %llu \"%s\" pid %d: its GPU time is the "
		         "kernel's count of its DRM clients",
		         (unsigned long long)t->id, t->name, (int)t->pid);
	else if (was == GPU_ACCOUNT_OK)
		log_info("tenant %llu \"%s\" pid %d: the kernel no longer "
		         "counts its GPU time (its DRM clients closed, or it "
		         "exited); it comes from the next source",
		         (unsigned long long)t->id, t->name, (int)t->pid);
}

/* Logs once when NVML starts counting t, and once when it stops. */
static void log_nvml(struct tenant *t, bool counted)
{
	if (counted == t->nvml.logged)
		return;
	t->nvml.logged = counted;
	if (counted)
		log_info("tenant %llu \"%s\" pid %d: its GPU time is NVML's "
		         "count of its process",
		         (unsigned long long)t->id, t->name, (int)t->pid);
	else
		log_info("tenant %llu \"%s\" pid %d: NVML no longer counts its "
		         "GPU time (it left the GPU, or exited); it comes from "
		         "the next source",
		         (unsigned long long)t->id, t->name, (int)t->pid);
}

/* The drm-pdev values of t's clients that place it nowhere (gpu_pdev.h):
 * the first that is no PCI slot, the first slot no GPU has. */
static void log_pdev_ignored(const struct tenant *t,
                             const struct gpu_pdev_choice *ch)
{
	char safe[DRM_FDINFO_PDEV_MAX * 4];
	if (ch->bad >= 0 && !t->acct.clients[ch->bad].pdev[0]) {
		/* none, or a value the parser did not keep (drm_fdinfo.h) */
		log_warn("tenant %llu \"%s\" pid %d: DRM client %llu names no "
		         "drm-pdev batond can read; it places the tenant on no "
		         "GPU (ignored)",
		         (unsigned long long)t->id, t->name, (int)t->pid,
		         (unsigned long long)t->acct.clients[ch->bad].id);
	} else if (ch->bad >= 0) {
		const struct gpu_client *c = &t->acct.clients[ch->bad];
		log_warn("tenant %llu \"%s\" pid %d: DRM client %llu: drm-pdev "
		         "\"%s\" is no PCI slot; it places the tenant on no "
		         "GPU (ignored)",
		         (unsigned long long)t->id, t->name, (int)t->pid,
		         (unsigned long long)c->id,
		         ipc_escape(safe, sizeof(safe), c->pdev));
	}
	if (ch->unknown >= 0) {
		const struct gpu_client *c = &t->acct.clients[ch->unknown];
		log_info("tenant %llu \"%s\" pid %d: DRM client %llu is on %s, "
		         "the PCI slot of none of batond's GPUs (ignored)",
		         (unsigned long long)t->id, t->name, (int)t->pid,
		         (unsigned long long)c->id, c->pdev);
	}
}

/* A game whose hello named no GPU (tenant.gpu_open), at the first read
 * that found its DRM clients (read across every device): the GPU their
 * drm-pdev names (gpu_pdev.h) is the one it renders on, and it moves
 * there, once, else it stays; from then on its account counts the
 * clients of its GPU's slot only. The clients are its own process's: it
 * moves itself, no one else. */
static void place_by_pdev(struct daemon *d, struct tenant *t)
{
	const char *pci[DAEMON_MAX_GPUS];
	for (size_t g = 0; g < d->n_gpus; g++)
		pci[g] = d->gpus[g].pci;
	struct gpu_pdev_choice ch =
	    gpu_pdev_choose(t->acct.clients, t->acct.n_clients, pci, d->n_gpus);
	t->gpu_open = false;
	log_pdev_ignored(t, &ch);
	const char *from = d->gpus[t->gpu].name;
	if (ch.gpu < 0) {
		if (ch.on > 1)
			log_info(
			    "tenant %llu \"%s\" pid %d: its DRM clients are "
			    "on %u GPUs, none with strictly the most render "
			    "time; it stays on %s",
			    (unsigned long long)t->id, t->name, (int)t->pid,
			    ch.on, from);
	} else if ((unsigned)ch.gpu == t->gpu) {
		log_info("tenant %llu \"%s\" pid %d: its DRM clients render on "
		         "%s, %s, where it is",
		         (unsigned long long)t->id, t->name, (int)t->pid,
		         pci[ch.gpu], from);
	} else {
		log_info("tenant %llu \"%s\" pid %d: its DRM clients render on "
		         "%s: moved from %s to %s",
		         (unsigned long long)t->id, t->name, (int)t->pid,
		         pci[ch.gpu], from, d->gpus[ch.gpu].name);
		daemon_tenant_move(d, t, (unsigned)ch.gpu);
	}
	gpu_account_keep_pdev(&t->acct, d->gpus[t->gpu].pci);
}

/* A game's GPU seconds of the epoch from the best source there is
 * (docs/runtime.md, "Accounting sources"): the kernel's count of its DRM
 * clients; else, on an NVIDIA GPU, NVML's count of its process's SM time
 * (nvml_account.h); else, on a CPU device, its process's CPU time (a software
 * rasterizer renders in the game's own threads, so that time is its own
 * busy time, as an engine's is on a GPU; tenant_seen.h sampled it);
 * else its shim's claim as tenant_seen bounded it (shim_s). Whether the
 * pid is still its peer's process is tenant_seen's start-time check:
 * a process it cannot vouch for is read by neither measurement. */
double tick_account_gpu(struct daemon *d, struct tenant *t, double shim_s,
                        bool cpu, int64_t now, double dt, unsigned *scans_left)
{
	const struct daemon_gpu *dg = &d->gpus[t->gpu < d->n_gpus ? t->gpu : 0];
	struct gpu_account_who w = {
	    .proc_root =
	        d->cfg.fdinfo_root[0] ? d->cfg.fdinfo_root : d->proc_root,
	    .pid = t->pid,
	    .uid = t->uid,
	    /* every device's clients while they may still place it */
	    .pdev = t->gpu_open ? "" : dg->pci,
	};
	bool counted = t->seen.clock.ok &&
	               gpu_account_epoch(&t->acct, &w, now, dt, scans_left);
	if (t->gpu_open && t->acct.state == GPU_ACCOUNT_OK) {
		/* its first read with clients: no base yet, nothing counted */
		place_by_pdev(d, t);
		dg = &d->gpus[t->gpu];
	}
	log_account(t);
	if (counted) {
		t->gpu_source = GPU_SOURCE_FDINFO;
		return t->acct.busy_s;
	}
	if (t->seen.clock.ok && !cpu &&
	    nvml_tenant_epoch(&t->nvml, d->nvml_acct, (size_t)(dg - d->gpus),
	                      t->pid, dt)) {
		log_nvml(t, true);
		t->gpu_source = GPU_SOURCE_NVML;
		return t->nvml.busy_s;
	}
	log_nvml(t, false);
	if (cpu && t->seen.clock.ok && !t->seen.unmeasured) {
		t->gpu_source = GPU_SOURCE_CPU;
		/* CPU seconds over the device's cores are its device seconds,
		 * as the shim's software claim is its CPU time over its
		 * cores: one busy core of two is half the device */
		unsigned share = t->seen.same_pid > 1 ? t->seen.same_pid : 1;
		unsigned cores = dg->n_cpus > 0 ? dg->n_cpus : 1;
		return fmin(t->seen.cpu_s / share / cores, dt);
	}
	t->gpu_source = GPU_SOURCE_SHIM;
	return shim_s;
}
