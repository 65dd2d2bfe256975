#include "daemon/tick/proc_cpu.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

bool proc_cpu_parse(const char *line, long ticks_per_s, int64_t *cpu_ns,
                    uint64_t *start_ticks)
{
	/* "PID (COMM) STATE ...": COMM is the process's to choose, so the
	 * fields start after the last ')'. */
	const char *close = strrchr(line, ')');
	if (!close || ticks_per_s <= 0)
		return false;
	uint64_t utime, stime, start;
	/* fields 3 (state) to 22 (starttime); 14 and 15 are utime, stime */
	int n = sscanf(close + 1,
	               " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u"
	               " %" SCNu64 " %" SCNu64 " %*d %*d %*d %*d %*d %*d"
	               " %" SCNu64,
	               &utime, &stime, &start);
	if (n != 3)
		return false;
	/* a 64-bit tick count over 1e9 ns would overflow past ~292 years
	 * of CPU time at 100 Hz: refuse rather than wrap */
	uint64_t ticks = utime + stime;
	if (ticks < utime || ticks > (uint64_t)INT64_MAX / 1000000000u)
		return false;
	*cpu_ns = (int64_t)(ticks * (1000000000u / (uint64_t)ticks_per_s));
	*start_ticks = start;
	return true;
}

/* Reads the whole stat line (a few hundred bytes; 1 KiB is ample: COMM
 * is at most 16 bytes) and parses it. */
static bool read_stat(const char *path, int64_t *cpu_ns, uint64_t *start)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return false;
	char buf[1024];
	ssize_t n;
	do
		n = read(fd, buf, sizeof(buf) - 1);
	while (n < 0 && errno == EINTR);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	long hz = sysconf(_SC_CLK_TCK);
	return proc_cpu_parse(buf, hz, cpu_ns, start);
}

bool proc_cpu_open(struct proc_cpu *p, const char *proc_root, pid_t pid)
{
	*p = (struct proc_cpu){0};
	if (pid <= 0 || snprintf(p->path, sizeof(p->path), "%s/%d/stat",
	                         proc_root ? proc_root : "/proc",
	                         (int)pid) >= (int)sizeof(p->path))
		return false;
	p->ok = read_stat(p->path, &p->last_ns, &p->start_ticks);
	return p->ok;
}

bool proc_cpu_sample(struct proc_cpu *p, int64_t *used_ns)
{
	int64_t now;
	uint64_t start;
	if (!p->ok)
		return false;
	if (!read_stat(p->path, &now, &start) || start != p->start_ticks) {
		p->ok = false;
		return false;
	}
	/* the kernel's counts only grow; a smaller one is not this process */
	if (now < p->last_ns) {
		p->ok = false;
		return false;
	}
	*used_ns = now - p->last_ns;
	p->last_ns = now;
	return true;
}

bool proc_cpu_started_after(const struct proc_cpu *p, int64_t boot_ns)
{
	long hz = sysconf(_SC_CLK_TCK);
	if (!p->ok || hz <= 0 || boot_ns < 0)
		return false;
	/* The start time is rounded down to a tick, so a process whose
	 * tick begins after boot_ns started after it; one in the same tick
	 * may not have. */
	uint64_t tick_ns = 1000000000u / (uint64_t)hz;
	return p->start_ticks > (uint64_t)boot_ns / tick_ns;
}
