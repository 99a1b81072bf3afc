#ifndef TIDINGS_CMICROHTTPD_H
#define TIDINGS_CMICROHTTPD_H
#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>
#endif
