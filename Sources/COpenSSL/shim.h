#ifndef MITMSIM_COPENSSL_SHIM_H
#define MITMSIM_COPENSSL_SHIM_H

#include <openssl/bio.h>
#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/ct.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/pkcs12.h>
#include <openssl/pem.h>
#include <openssl/provider.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

/* Function-like macros and unions are invisible to the Swift importer; these wrap exactly those. */

static inline void COpenSSL_OPENSSL_free(void *p) { OPENSSL_free(p); }

/* SSL_OP_* are built by SSL_OP_BIT(), which the importer cannot evaluate. */
static inline uint64_t COpenSSL_SSL_OP_ENABLE_MIDDLEBOX_COMPAT(void) { return SSL_OP_ENABLE_MIDDLEBOX_COMPAT; }
static inline uint64_t COpenSSL_SSL_OP_NO_TICKET(void) { return SSL_OP_NO_TICKET; }
static inline uint64_t COpenSSL_SSL_OP_CIPHER_SERVER_PREFERENCE(void) { return SSL_OP_CIPHER_SERVER_PREFERENCE; }

static inline int COpenSSL_SSL_get_ex_new_index(void) { return SSL_get_ex_new_index(0, NULL, NULL, NULL, NULL); }
/* A slot whose value the SSL_CTX owns: `release` is called with it when OpenSSL frees the SSL_CTX. */
static inline int COpenSSL_SSL_CTX_get_ex_new_index(CRYPTO_EX_free *release) { return SSL_CTX_get_ex_new_index(0, NULL, NULL, NULL, release); }
static inline int COpenSSL_X509_STORE_CTX_get_ex_new_index(void) { return X509_STORE_CTX_get_ex_new_index(0, NULL, NULL, NULL, NULL); }

/* Puts an error taken off the queue back on it, as it was raised (ERR_raise_data is a macro over a variadic). */
static inline void COpenSSL_ERR_restore(unsigned long code, const char *file, int line, const char *func, const char *data) {
    ERR_new();
    ERR_set_debug(file, line, func);
    if (data != NULL && data[0] != '\0') ERR_set_error(ERR_GET_LIB(code), ERR_GET_REASON(code), "%s", data);
    else ERR_set_error(ERR_GET_LIB(code), ERR_GET_REASON(code), NULL);
}

static inline long COpenSSL_BIO_get_mem_data(BIO *b, char **pp) { return BIO_get_mem_data(b, pp); }

static inline int COpenSSL_EVP_PKEY_KEYPAIR(void) { return EVP_PKEY_KEYPAIR; }

/* OSSL_PARAM arrays keep pointers to their keys, so keys must be static C strings, never Swift temporaries. */
static inline const char *COpenSSL_PARAM_GROUP_NAME(void) { return OSSL_PKEY_PARAM_GROUP_NAME; }
static inline const char *COpenSSL_PARAM_PUB_KEY(void) { return OSSL_PKEY_PARAM_PUB_KEY; }
static inline const char *COpenSSL_PARAM_PRIV_KEY(void) { return OSSL_PKEY_PARAM_PRIV_KEY; }

static inline void COpenSSL_X509V3_set_ctx_nodb(X509V3_CTX *c) { X509V3_set_ctx_nodb(c); }

/* GENERAL_NAME keeps its value in a union: hand back the DNS name or IP address bytes. */
static inline const unsigned char *COpenSSL_GENERAL_NAME_dns(const GENERAL_NAME *g, int *len) {
    if (g->type != GEN_DNS) return NULL;
    *len = ASN1_STRING_length(g->d.dNSName);
    return ASN1_STRING_get0_data(g->d.dNSName);
}
static inline const unsigned char *COpenSSL_GENERAL_NAME_ip(const GENERAL_NAME *g, int *len) {
    if (g->type != GEN_IPADD) return NULL;
    *len = ASN1_STRING_length(g->d.iPAddress);
    return ASN1_STRING_get0_data(g->d.iPAddress);
}

/* 1 when an extension's value decodes, to its last byte, as the type OpenSSL knows for it; 0 when it does not; -1 when
   OpenSSL has no decoder for it. The decoded value is freed here (its type is only known through the method's item). */
static inline int COpenSSL_X509_EXTENSION_decodes(X509_EXTENSION *e) {
    const X509V3_EXT_METHOD *method = X509V3_EXT_get(e);
    if (method == NULL || method->it == NULL) return -1;
    const ASN1_OCTET_STRING *data = X509_EXTENSION_get_data(e);
    const unsigned char *start = ASN1_STRING_get0_data(data), *p = start;
    long length = ASN1_STRING_length(data);
    ASN1_VALUE *value = ASN1_item_d2i(NULL, &p, length, ASN1_ITEM_ptr(method->it));
    if (value == NULL) return 0;
    ASN1_item_free(value, ASN1_ITEM_ptr(method->it));
    return p == start + length;
}

#endif
