/* baton profile's runs of the game (profile.h): one per level, with the
 * protocol's environment, and their progress on stderr. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/profile.h"

double profile_now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Rows in a growing frames.csv (lines after the header). */
static size_t csv_rows(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return 0;
	size_t lines = 0;
	char buf[8192];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		for (size_t i = 0; i < n; i++)
			lines += buf[i] == '\n';
	fclose(f);
	return lines ? lines - 1 : 0;
}

static void progress(bool tty, size_t step, size_t steps, size_t level,
                     size_t done, size_t total, const char *what)
{
	if (!tty)
		return;
	fprintf(stderr, "\rlevel %zu (%zu/%zu) %s ", level, step, steps, what);
	if (total) { /* the best level's run set the frame count */
		char bar[31];
		size_t fill = (done > total ? total : done) * 30 / total;
		memset(bar, '#', fill);
		memset(bar + fill, '.', 30 - fill);
		bar[30] = '\0';
		fprintf(stderr, "[%s] %zu/%zu frames   ", bar, done, total);
	} else {
		fprintf(stderr, "%zu frames   ", done);
	}
}

int profile_exec(char **cmd, size_t level, size_t step, size_t steps,
                 const char *dir, size_t total, bool tty)
{
	char lv[16], csv[FILE_MAX];
	snprintf(lv, sizeof(lv), "%zu", level);
	snprintf(csv, sizeof(csv), "%s/frames.csv", dir);
	if (!tty)
		fprintf(stderr, "level %zu (%zu/%zu): running %s\n", level,
		        step, steps, cmd[0]);
	int pipefd[2];
	if (pipe2(pipefd, O_CLOEXEC) != 0)
		return CLI_EXIT_FAILURE;
	pid_t pid = fork();
	if (pid < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		fprintf(stderr, "baton profile: fork: %s\n", strerror(errno));
		return CLI_EXIT_FAILURE;
	}
	if (pid == 0) {
		close(pipefd[0]);
		/* baton profile's stdout is its table (--json): the game's
		 * own output goes to stderr. */
		if (dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
			_exit(127);
		if (setenv("BATON_QUALITY_LEVEL", lv, 1) == 0 &&
		    setenv("BATON_PROFILE_DIR", dir, 1) == 0)
			execvp(cmd[0], cmd);
		int e = errno;
		if (write(pipefd[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(pipefd[1]);
	int e = 0;
	ssize_t got = read(pipefd[0], &e, sizeof(e));
	close(pipefd[0]);
	int status = 0;
	if (got == (ssize_t)sizeof(e)) {
		waitpid(pid, &status, 0);
		fprintf(stderr, "baton profile: %s: %s\n", cmd[0], strerror(e));
		return e == ENOENT ? PROFILE_EXIT_NOTFOUND
		                   : PROFILE_EXIT_NOEXEC;
	}
	double t0 = profile_now_s();
	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);
		if (w == pid || (w < 0 && errno != EINTR))
			break;
		progress(tty, step, steps, level, csv_rows(csv), total,
		         "running");
		struct timespec ts = {0, 200 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	size_t rows = csv_rows(csv);
	progress(tty, step, steps, level, rows, total, "ran    ");
	fprintf(stderr,
	        tty ? "\n"
	            : "level %zu (%zu/%zu): %zu frames in "
	              "%.1f s\n",
	        level, step, steps, rows, profile_now_s() - t0);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (WIFSIGNALED(status))
		fprintf(stderr,
		        "baton profile: level %zu: %s killed by signal "
		        "%d\n",
		        level, cmd[0], WTERMSIG(status));
	else
		fprintf(stderr,
		        "baton profile: level %zu: %s exited with "
		        "status %d\n",
		        level, cmd[0], WEXITSTATUS(status));
	return PROFILE_EXIT_GAME;
}
