#ifndef TIDINGS_CLIBPQ_H
#define TIDINGS_CLIBPQ_H
#include <libpq-fe.h>
#endif
