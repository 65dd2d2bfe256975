/* Reading a tenant's DRM clients from /proc (gpu_account.h): the I/O,
 * bounded; the epoch's arithmetic is in gpu_account.c. */
#include "daemon/accounting/gpu_account.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The process's /proc directory sub ("fd", "fdinfo"), if it is the
 * tenant's uid's (the kernel gives the process's directories its uid). */
static enum gpu_account_state open_pid_dir(const struct gpu_account_who *w,
                                           const char *sub, int *dir)
{
	char path[256];
	if (w->pid <= 0 || snprintf(path, sizeof(path), "%s/%d/%s",
	                            w->proc_root ? w->proc_root : "/proc",
	                            (int)w->pid, sub) >= (int)sizeof(path))
		return GPU_ACCOUNT_GONE;
	*dir = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (*dir < 0)
		return GPU_ACCOUNT_GONE;
	struct stat st;
	if (fstat(*dir, &st) != 0) {
		close(*dir);
		return GPU_ACCOUNT_GONE;
	}
	if (st.st_uid != w->uid) {
		close(*dir);
		return GPU_ACCOUNT_OTHER_USER;
	}
	return GPU_ACCOUNT_OK;
}

/* A fd number written in decimal, nothing else. */
static bool fd_name(const char *s, int *fd)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (s[0] < '0' || s[0] > '9' || *end || errno || v < 0 || v > 1 << 30)
		return false;
	*fd = (int)v;
	return true;
}

static bool is_drm_link(int fd_dir, const char *name)
{
	char target[64];
	ssize_t n = readlinkat(fd_dir, name, target, sizeof(target) - 1);
	if (n <= 0)
		return false;
	target[n] = '\0';
	return strncmp(target, "/dev/dri/", 9) == 0;
}

enum gpu_account_state gpu_account_scan(struct gpu_account *a,
                                        const struct gpu_account_who *w)
{
	int fd_dir;
	enum gpu_account_state st = open_pid_dir(w, "fd", &fd_dir);
	a->n_fds = 0;
	if (st != GPU_ACCOUNT_OK)
		return st;
	DIR *d = fd_dir >= 0 ? fdopendir(fd_dir) : NULL;
	if (!d) {
		if (fd_dir >= 0)
			close(fd_dir);
		return GPU_ACCOUNT_GONE;
	}
	struct dirent *e;
	unsigned seen = 0;
	int fd;
	while (seen < GPU_ACCOUNT_MAX_SCAN && a->n_fds < GPU_ACCOUNT_MAX_FDS &&
	       (e = readdir(d))) {
		if (!fd_name(e->d_name, &fd))
			continue;
		seen++;
		if (is_drm_link(dirfd(d), e->d_name))
			a->fds[a->n_fds++] = fd;
	}
	closedir(d);
	return GPU_ACCOUNT_OK;
}

/* One fdinfo file, at most GPU_ACCOUNT_FILE_MAX bytes; false if it
 * cannot be read (the fd was closed, the process exited). */
static bool read_fdinfo(int info_dir, int fd, struct drm_fdinfo *f)
{
	char name[16], buf[GPU_ACCOUNT_FILE_MAX];
	snprintf(name, sizeof(name), "%d", fd);
	int file = openat(info_dir, name,
	                  O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (file < 0)
		return false;
	size_t len = 0;
	ssize_t n;
	do {
		n = read(file, buf + len, sizeof(buf) - len);
		if (n > 0)
			len += (size_t)n;
	} while ((n > 0 && len < sizeof(buf)) || (n < 0 && errno == EINTR));
	close(file);
	return n >= 0 && drm_fdinfo_parse(buf, len, f);
}

/* The sums of one client's engines. */
static void client_from(const struct drm_fdinfo *f, struct gpu_client *c)
{
	*c = (struct gpu_client){.id = f->client_id,
	                         .resident_bytes = f->resident_bytes};
	memcpy(c->pdev, f->pdev, sizeof(c->pdev));
	for (unsigned i = 0; i < f->n_engines; i++) {
		const struct drm_engine *e = &f->engines[i];
		enum drm_engine_class k = drm_engine_class(f->driver, e->name);
		uint64_t ns;
		if (k == DRM_ENGINE_OTHER)
			continue;
		if (drm_engine_busy_ns(e, &ns)) {
			/* counters far below 2^63: no wrap of the sum */
			if (k == DRM_ENGINE_RENDER)
				c->render_ns += ns;
			else
				c->video_ns += ns;
			c->has_render |= k == DRM_ENGINE_RENDER;
		} else if (k == DRM_ENGINE_RENDER && e->has_cycles &&
		           e->has_total &&
		           c->n_cycles < GPU_ACCOUNT_MAX_CYCLES) {
			/* xe: the cycles of every engine of the class
			 * against one engine's clock */
			struct gpu_cycles *y = &c->cycles[c->n_cycles++];
			memcpy(y->engine, e->name, sizeof(y->engine));
			y->cycles = e->cycles / e->capacity;
			y->total = e->total_cycles;
			c->has_render = true;
		}
	}
}

static bool known(const struct gpu_client *c, unsigned n,
                  const struct drm_fdinfo *f)
{
	for (unsigned i = 0; i < n; i++)
		if (c[i].id == f->client_id && strcmp(c[i].pdev, f->pdev) == 0)
			return true;
	return false;
}

enum gpu_account_state gpu_account_read(const struct gpu_account_who *w,
                                        const int *fds, unsigned n_fds,
                                        struct gpu_client *out, unsigned max,
                                        unsigned *n)
{
	int info;
	*n = 0;
	enum gpu_account_state st = open_pid_dir(w, "fdinfo", &info);
	if (st != GPU_ACCOUNT_OK)
		return st;
	struct drm_fdinfo f;
	for (unsigned i = 0; i < n_fds && *n < max; i++) {
		if (!read_fdinfo(info, fds[i], &f))
			continue; /* closed since the scan */
		if (w->pdev && w->pdev[0] && strcmp(f.pdev, w->pdev) != 0)
			continue;
		if (known(out, *n, &f))
			continue;
		client_from(&f, &out[*n]);
		out[*n].fd = fds[i];
		if (out[*n].has_render)
			(*n)++;
	}
	close(info);
	/* An fd closed or a process that exited mid-read leaves clients
	 * out: they are new at the next read and count from there, never
	 * against a base they do not have (gpu_account.c). */
	return *n > 0 ? GPU_ACCOUNT_OK : GPU_ACCOUNT_NONE;
}
