/* batond's GPUs (gpus.h). */
#include "daemon/gpus.h"

#include "ipc/cpu_list.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* The PCI slot of a render node (device/uevent's PCI_SLOT_NAME); "" when
 * it has none. */
static void node_pci(const char *dir, char *out, size_t len)
{
	char path[640], line[256];
	out[0] = '\0';
	snprintf(path, sizeof(path), "%s/device/uevent", dir);
	FILE *f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "PCI_SLOT_NAME=", 14) == 0) {
			line[strcspn(line, "\n")] = '\0';
			/* "0000:01:00.0": anything longer is not a slot */
			if (strlen(line + 14) < len)
				memcpy(out, line + 14, strlen(line + 14) + 1);
			break;
		}
	fclose(f);
}

static int by_minor(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The render nodes under sysfs_root/class/drm, in order; how many. */
static size_t discover(struct daemon_gpu *gpus, const char *sysfs_root)
{
	char dir[256];
	snprintf(dir, sizeof(dir), "%s/class/drm", sysfs_root);
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	char names[DAEMON_MAX_GPUS][64];
	const char *sorted[DAEMON_MAX_GPUS];
	size_t n = 0;
	struct dirent *e;
	while ((e = readdir(d)) && n < DAEMON_MAX_GPUS)
		if (strncmp(e->d_name, "renderD", 7) == 0 &&
		    strlen(e->d_name) < sizeof(names[0])) {
			snprintf(names[n], sizeof(names[n]), "%s", e->d_name);
			sorted[n] = names[n];
			n++;
		}
	closedir(d);
	qsort(sorted, n, sizeof(sorted[0]), by_minor);
	for (size_t i = 0; i < n; i++) {
		struct daemon_gpu *g = &gpus[i];
		snprintf(g->name, sizeof(g->name), "gpu%zu", i);
		snprintf(g->device, sizeof(g->device), "/dev/dri/%s",
		         sorted[i]);
		char node[512];
		snprintf(node, sizeof(node), "%s/%s", dir, sorted[i]);
		node_pci(node, g->pci, sizeof(g->pci));
	}
	return n;
}

enum daemon_gpu_kind daemon_gpu_kind(const struct daemon_gpu *g)
{
	if (g->has_cpus)
		return DAEMON_GPU_CPUS;
	if (g->device[0] || g->pci[0] || g->uuid[0])
		return DAEMON_GPU_HARDWARE;
	return DAEMON_GPU_UNKNOWN;
}

bool daemon_gpus_setup(struct daemon_gpu *gpus, size_t *n,
                       const struct daemon_gpu_conf *conf, size_t n_conf,
                       const char *sysfs_root, const char *nvml_lib, char *err,
                       size_t errlen)
{
	for (size_t i = 0; i < DAEMON_MAX_GPUS; i++)
		gpus[i] = (struct daemon_gpu){0};
	*n = 0;
	for (size_t i = 0; i < n_conf && i < DAEMON_MAX_GPUS; i++) {
		struct daemon_gpu *g = &gpus[i];
		snprintf(g->name, sizeof(g->name), "%s", conf[i].name);
		snprintf(g->device, sizeof(g->device), "%s", conf[i].device);
		/* a device given as a PCI slot is also what Vulkan reports */
		if (strchr(conf[i].device, ':') && conf[i].device[0] != '/')
			snprintf(g->pci, sizeof(g->pci), "%s", conf[i].device);
		/* and one given as NVML's UUID, what Vulkan's deviceUUID is */
		if (strncmp(conf[i].device, "GPU-", 4) == 0)
			daemon_gpus_uuid_norm(conf[i].device, g->uuid,
			                      sizeof(g->uuid));
		if (conf[i].cpus[0]) {
			char why[128];
			if (!ipc_cpu_list_parse(conf[i].cpus, &g->cpus, why,
			                        sizeof(why))) {
				snprintf(err, errlen, "GPU \"%s\": cpus: %s",
				         g->name, why);
				return false;
			}
			g->has_cpus = true;
			g->n_cpus = (unsigned)CPU_COUNT(&g->cpus);
		}
		*n = i + 1;
	}
	if (*n == 0) {
		*n = discover(gpus, sysfs_root ? sysfs_root : "/sys");
		*n = daemon_gpus_nvml(gpus, *n, DAEMON_MAX_GPUS, nvml_lib);
	}
	if (*n == 0) {
		snprintf(gpus[0].name, sizeof(gpus[0].name), "gpu0");
		*n = 1;
	}
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	for (size_t i = 0; i < *n; i++) {
		host_load_init(&gpus[i].host, NULL);
		if (gpus[i].has_cpus)
			host_load_set_cpus(&gpus[i].host, &gpus[i].cpus);
		else
			gpus[i].n_cpus = online > 0 ? (unsigned)online : 1;
	}
	return true;
}

int daemon_gpu_for(const struct daemon_gpu *gpus, size_t n, const char *gpu,
                   const char *uuid, const char *pci, const cpu_set_t *allowed)
{
	bool fallback;
	return daemon_gpu_choose(gpus, n, gpu, uuid, pci, allowed, &fallback);
}

int daemon_gpu_choose(const struct daemon_gpu *gpus, size_t n, const char *gpu,
                      const char *uuid, const char *pci,
                      const cpu_set_t *allowed, bool *fallback)
{
	*fallback = false;
	if (gpu && gpu[0]) {
		for (size_t i = 0; i < n; i++)
			if (strcmp(gpus[i].name, gpu) == 0 ||
			    (gpus[i].device[0] &&
			     strcmp(gpus[i].device, gpu) == 0))
				return (int)i;
		return -1;
	}
	if (uuid && uuid[0]) {
		char want[40];
		daemon_gpus_uuid_norm(uuid, want, sizeof(want));
		for (size_t i = 0; i < n && want[0]; i++)
			if (strcmp(gpus[i].uuid, want) == 0)
				return (int)i;
	}
	if (pci && pci[0])
		for (size_t i = 0; i < n; i++)
			if (gpus[i].pci[0] && strcasecmp(gpus[i].pci, pci) == 0)
				return (int)i;
	if (allowed && CPU_COUNT(allowed) > 0)
		for (size_t i = 0; i < n; i++) {
			if (!gpus[i].has_cpus)
				continue;
			cpu_set_t both;
			CPU_AND(&both, allowed, &gpus[i].cpus);
			if (CPU_EQUAL(&both, allowed))
				return (int)i;
		}
	*fallback = true;
	return 0;
}

bool daemon_gpus_allowed(pid_t pid, cpu_set_t *out)
{
	return pid > 0 && sched_getaffinity(pid, sizeof(*out), out) == 0;
}
