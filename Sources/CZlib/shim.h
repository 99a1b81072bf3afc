#ifndef TIDINGS_CZLIB_H
#define TIDINGS_CZLIB_H
#include <zlib.h>

// inflateInit2 is a macro (it passes the header's version and the struct's
// size), which Swift cannot call.
static inline int CZlib_inflate_init_raw(z_stream *stream) {
    return inflateInit2(stream, -MAX_WBITS);
}
#endif
