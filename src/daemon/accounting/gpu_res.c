/* amdgpu's VRAM figures from sysfs (gpu_res.h). */
#include "daemon/accounting/gpu_res.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A file holding one decimal number and a newline (at most 31 bytes). */
static bool read_u64(const char *path, uint64_t *out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return false;
	char buf[32];
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	if (buf[0] < '0' || buf[0] > '9')
		return false;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(buf, &end, 10);
	if (errno || (*end && *end != '\n'))
		return false;
	*out = (uint64_t)v;
	return true;
}

bool gpu_res_sysfs_vram(const char *sysfs_root, const char *pci,
                        uint64_t *total, uint64_t *used)
{
	if (!pci[0] || strchr(pci, '/'))
		return false;
	char path[512];
	const char *root = sysfs_root ? sysfs_root : "/sys";
	snprintf(path, sizeof(path),
	         "%s/bus/pci/devices/%s/mem_info_vram_total", root, pci);
	if (!read_u64(path, total) || *total == 0)
		return false;
	snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/mem_info_vram_used",
	         root, pci);
	return read_u64(path, used);
}
