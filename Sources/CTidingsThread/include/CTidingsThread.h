#ifndef CTIDINGS_THREAD_H
#define CTIDINGS_THREAD_H

#include <sys/types.h>

/// Thread calls glibc declares only under _GNU_SOURCE, which Swift's Glibc
/// module does not define. Each returns 0 or an errno value unless it
/// says otherwise.

/// Names the calling thread for the kernel (`top -H`, /proc, debuggers).
/// The kernel keeps 15 bytes; a longer name is cut there.
int CTidingsThread_setName(const char *name);

/// The calling thread's kernel id (gettid), which names one thread to
/// setpriority. Never fails.
pid_t CTidingsThread_id(void);

/// Sets the nice value of the thread `thread` (an id from
/// CTidingsThread_id). Linux keeps nice values per thread, so this leaves
/// the rest of the process alone. Raising it needs no privilege; lowering
/// it back does.
int CTidingsThread_setNice(pid_t thread, int nice);

#endif
