#ifndef TIDINGS_CCRYPTO_H
#define TIDINGS_CCRYPTO_H
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/err.h>
#endif
