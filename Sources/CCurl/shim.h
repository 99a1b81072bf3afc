#ifndef TIDINGS_CCURL_H
#define TIDINGS_CCURL_H
#include <curl/curl.h>
#endif
