#ifndef MITMSIM_COPENSSL_SHIM_H
#define MITMSIM_COPENSSL_SHIM_H

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

/* Function-like macros and unions are invisible to the Swift importer; these wrap exactly those. */

static inline void COpenSSL_OPENSSL_free(void *p) { OPENSSL_free(p); }

static inline long COpenSSL_BIO_get_mem_data(BIO *b, char **pp) { return BIO_get_mem_data(b, pp); }

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

#endif
