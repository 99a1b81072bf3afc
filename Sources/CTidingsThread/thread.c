#define _GNU_SOURCE
#include "CTidingsThread.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

int CTidingsThread_setName(const char *name) {
    char kernel_name[16];
    strncpy(kernel_name, name, sizeof kernel_name - 1);
    kernel_name[sizeof kernel_name - 1] = '\0';
    return pthread_setname_np(pthread_self(), kernel_name);
}

pid_t CTidingsThread_id(void) {
    return gettid();
}

int CTidingsThread_setNice(pid_t thread, int nice) {
    return setpriority(PRIO_PROCESS, (id_t)thread, nice) == 0 ? 0 : errno;
}
