/* A fatal signal's report on stderr: which signal, which thread, the
 * faulting address and a backtrace, then the default action (the core,
 * the exit status), so that a crash seen once in a long run says where it
 * was. */
#ifndef ARENA_CRASH_REPORT_H
#define ARENA_CRASH_REPORT_H

void crash_report_install(void);

#endif
