#ifndef TIDINGS_CCRYPTO_H
#define TIDINGS_CCRYPTO_H
#include <openssl/crypto.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
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
/* EVP_PKEY_fromdata's selection for a public key: a macro built of other
   macros, which Swift does not import. */
static const int tidings_evp_pkey_public_key = EVP_PKEY_PUBLIC_KEY;
#endif
