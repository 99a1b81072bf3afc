#define _GNU_SOURCE
#include "CTidingsThreadName.h"

#include <pthread.h>
#include <string.h>

int CTidingsThreadName_set(const char *name) {
    char kernel_name[16];
    strncpy(kernel_name, name, sizeof kernel_name - 1);
    kernel_name[sizeof kernel_name - 1] = '\0';
    return pthread_setname_np(pthread_self(), kernel_name);
}
