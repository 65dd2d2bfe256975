#include "fake_proc.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void fake_proc_init(struct fake_proc *p)
{
	snprintf(p->root, sizeof(p->root), "/tmp/baton-test-proc-XXXXXX");
	assert_non_null(mkdtemp(p->root));
}

void fake_proc_set(struct fake_proc *p, pid_t pid, int64_t cpu_ns)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/%d", p->root, (int)pid);
	mkdir(path, 0755); /* may exist */
	snprintf(path, sizeof(path), "%s/%d/stat", p->root, (int)pid);
	long hz = sysconf(_SC_CLK_TCK);
	long long ticks = (long long)(cpu_ns / (1000000000LL / hz));
	/* fields 3 to 22: utime is the 14th field, starttime the 22nd */
	char tmp[160];
	snprintf(tmp, sizeof(tmp), "%s.new", path);
	FILE *f = fopen(tmp, "w");
	assert_non_null(f);
	fprintf(f,
	        "%d (game) S 1 2 3 4 5 6 7 8 9 10 %lld 0 0 0 20 0 1 0 "
	        "4242 99 7\n",
	        (int)pid, ticks);
	fclose(f);
	assert_int_equal(rename(tmp, path), 0);
}

void fake_proc_done(struct fake_proc *p)
{
	DIR *d = opendir(p->root);
	if (!d)
		return;
	struct dirent *e;
	char path[sizeof(p->root) + sizeof(e->d_name) + 8];
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/stat", p->root, e->d_name);
		unlink(path);
		snprintf(path, sizeof(path), "%s/%s", p->root, e->d_name);
		rmdir(path);
	}
	closedir(d);
	rmdir(p->root);
}
