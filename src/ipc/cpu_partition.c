/* Space harvesting's mechanism on a software rasterizer (cpu_partition.h). */
#include "ipc/cpu_partition.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ipc/shm.h"

void cpu_partition_init(struct cpu_partition *cp)
{
	CPU_ZERO(&cp->base);
	cp->n_base = 0;
	cp->applied = 0;
	if (sched_getaffinity(0, sizeof(cp->base), &cp->base) == 0)
		cp->n_base = CPU_COUNT(&cp->base);
}

bool cpu_partition_set(const struct cpu_partition *cp, uint32_t p,
                       cpu_set_t *out)
{
	uint32_t first = BATON_PARTITION_FIRST(p);
	uint32_t count = BATON_PARTITION_COUNT(p);
	if (count == 0)
		first = 0, count = (uint32_t)cp->n_base;
	CPU_ZERO(out);
	uint32_t index = 0, taken = 0;
	for (int cpu = 0; cpu < CPU_SETSIZE && taken < count; cpu++) {
		if (!CPU_ISSET(cpu, &cp->base))
			continue;
		if (index++ < first)
			continue;
		CPU_SET(cpu, out);
		taken++;
	}
	return taken > 0;
}

/* struct linux_dirent64, which glibc 2.36 declares only with its own
 * getdents64 wrapper: the raw system call needs no allocation, as
 * readdir's buffer would. */
struct task_dirent {
	uint64_t ino;
	int64_t off;
	unsigned short reclen;
	unsigned char type;
	char name[];
};

int cpu_partition_apply(struct cpu_partition *cp, uint32_t p)
{
	cpu_set_t set;
	if (cp->n_base <= 0 || !cpu_partition_set(cp, p, &set))
		return -1;
	int fd = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	char buf[4096] __attribute__((aligned(8)));
	int threads = 0;
	for (;;) {
		long n = syscall(SYS_getdents64, fd, buf, sizeof(buf));
		if (n <= 0)
			break;
		for (long at = 0; at < n;) {
			struct task_dirent *d =
			    (struct task_dirent *)(buf + at);
			at += d->reclen;
			char *end;
			long tid = strtol(d->name, &end, 10);
			if (d->reclen == 0 || end == d->name || *end ||
			    tid <= 0)
				continue;
			if (sched_setaffinity((pid_t)tid, sizeof(set), &set) ==
			    0)
				threads++;
		}
	}
	close(fd);
	if (threads == 0)
		return -1;
	cp->applied = BATON_PARTITION_COUNT(p) ? p : 0;
	return threads;
}
