#ifndef TIDINGS_CPSL_H
#define TIDINGS_CPSL_H
#include <libpsl.h>
#endif
