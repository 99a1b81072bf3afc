#ifndef CTIDINGS_THREAD_NAME_H
#define CTIDINGS_THREAD_NAME_H

/// Names the calling thread for the kernel (`top -H`, /proc, debuggers).
/// glibc declares pthread_setname_np only under _GNU_SOURCE, which Swift's
/// Glibc module does not define. The kernel keeps 15 bytes; a longer name is
/// cut there. Returns 0 or an errno value.
int CTidingsThreadName_set(const char *name);

#endif
