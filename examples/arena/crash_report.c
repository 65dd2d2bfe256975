#include "crash_report.h"

#include <execinfo.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

/* Sanitizer builds keep their own reports, which say more. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define ARENA_OWN_REPORT 0
#else
#define ARENA_OWN_REPORT 1
#endif

#define FRAMES 64

static const int fatal[] = {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL};

/* Only what the handler may call after the heap is broken: no malloc
 * (snprintf into a stack buffer, write, backtrace once warmed up by
 * crash_report_install, backtrace_symbols_fd). */
static void on_fatal(int sig, siginfo_t *info, void *uctx)
{
	(void)uctx;
	char name[17] = "?";
	prctl(PR_GET_NAME, name, 0, 0, 0);
	char line[256];
	int n = snprintf(line, sizeof(line),
	                 "arena: fatal signal %d (%s, code %d) in thread %ld "
	                 "'%s', address %p; backtrace:\n",
	                 sig, sigabbrev_np(sig) ? sigabbrev_np(sig) : "?",
	                 info ? info->si_code : 0, (long)gettid(), name,
	                 info ? info->si_addr : NULL);
	if (n > 0)
		(void)!write(STDERR_FILENO, line,
		             (size_t)n < sizeof(line) ? (size_t)n
		                                      : sizeof(line) - 1);
	void *frames[FRAMES];
	int depth = backtrace(frames, FRAMES);
	backtrace_symbols_fd(frames, depth, STDERR_FILENO);
	/* SA_RESETHAND put the default back: raising again ends the
	 * process as the signal would have, core included. */
	raise(sig);
}

void crash_report_install(void)
{
	if (!ARENA_OWN_REPORT)
		return;
	/* The first backtrace loads libgcc's unwinder, which allocates: do
	 * it now, not in a handler that may run inside a broken malloc. */
	void *warm[1];
	(void)backtrace(warm, 1);
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fatal;
	sa.sa_flags = SA_SIGINFO | SA_RESETHAND | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		sigaction(fatal[i], &sa, NULL);
}
