#ifndef TIDINGS_CCRYPTO_H
#define TIDINGS_CCRYPTO_H
#include <openssl/crypto.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/err.h>

/* The key types SigningKey accepts, as plain constants: the macros behind
   them are aliases of object identifiers Swift does not import. */
static const int tidings_evp_pkey_ec = EVP_PKEY_EC;
static const int tidings_evp_pkey_rsa = EVP_PKEY_RSA;
#endif
