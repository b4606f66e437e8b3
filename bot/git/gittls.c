/*
 * The CA bundle, parsed when a TLS connection first needs it.
 *
 * Debian's libgit2 (1.5, built with mbedTLS) parses the whole system CA
 * bundle in git_libgit2_init(): 6.5 ms of every patchyard process that
 * opens a repository, a tenth of a rebuild, for TLS connections that
 * most commands never make (the staging repository, upstream and the
 * archives are local paths as a rule).  libgit2 has no option to put it
 * off.  So this file defines the three mbedTLS functions libgit2 calls
 * around it, and the dynamic linker binds libgit2's calls to these (the
 * binary exports its symbols; a test linking this object does too):
 *
 * - the first mbedtls_x509_crt_parse_file(), libgit2's at its start, is
 *   noted, not done: the chain stays empty and libgit2 hands it to its
 *   TLS configuration as usual;
 * - mbedtls_ssl_handshake(), which libgit2 calls to open every TLS
 *   connection, first parses the noted file into that chain, so the
 *   handshake verifies against the bundle exactly as it would have;
 * - mbedtls_x509_crt_free() forgets a noted chain freed before any
 *   handshake (GIT_OPT_SET_SSL_CERT_LOCATIONS replaces it).
 *
 * Each hands on to mbedTLS's own function (dlsym RTLD_NEXT).  Later
 * parses are not put off.  The types are mbedTLS's, seen here as void:
 * pointers, which is all these functions take.
 */
#include "bot/git/gittls.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"
#include "util/xalloc.h"

int mbedtls_x509_crt_parse_file(void *chain, const char *path);
void mbedtls_x509_crt_free(void *chain);
int mbedtls_ssl_handshake(void *ssl);

static pthread_mutex_t tls_mu = PTHREAD_MUTEX_INITIALIZER;
static bool noted_once; /* the first parse was put off */
static void *noted; /* its chain, until it is parsed or freed */
static char *noted_path;
static int parsed = GITTLS_NOT_YET; /* what the put-off parse gave */

/* mbedTLS's own functions. */
static pthread_once_t real_once = PTHREAD_ONCE_INIT;
static int (*real_parse_file)(void *, const char *);
static void (*real_free)(void *);
static int (*real_handshake)(void *);

/* mbedTLS's function name, or abort: without it nothing works. */
static void *
real(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);

	if (f == NULL)
		fatal("git: mbedTLS's %s is not loaded", name);
	return f;
}

static void
find_real(void)
{
	real_parse_file =
	    (int (*)(void *, const char *))real("mbedtls_x509_crt_parse_file");
	real_free = (void (*)(void *))real("mbedtls_x509_crt_free");
	real_handshake = (int (*)(void *))real("mbedtls_ssl_handshake");
}

int
mbedtls_x509_crt_parse_file(void *chain, const char *path)
{
	pthread_once(&real_once, find_real);
	pthread_mutex_lock(&tls_mu);
	if (!noted_once && chain != NULL && path != NULL) {
		noted_once = true;
		noted = chain;
		noted_path = xstrdup(path);
		pthread_mutex_unlock(&tls_mu);
		return 0;
	}
	pthread_mutex_unlock(&tls_mu);
	return real_parse_file(chain, path);
}

void
mbedtls_x509_crt_free(void *chain)
{
	pthread_once(&real_once, find_real);
	pthread_mutex_lock(&tls_mu);
	if (chain != NULL && chain == noted) {
		noted = NULL;
		free(noted_path);
		noted_path = NULL;
	}
	pthread_mutex_unlock(&tls_mu);
	real_free(chain);
}

int
mbedtls_ssl_handshake(void *ssl)
{
	pthread_once(&real_once, find_real);
	pthread_mutex_lock(&tls_mu);
	if (noted != NULL) {
		parsed = real_parse_file(noted, noted_path);
		/* Below 0 the bundle is unreadable: the chain stays empty
		 * and every certificate fails its check, as libgit2's own
		 * failed parse would have left it. */
		if (parsed < 0)
			log_warn("git: cannot load the CA certificates of %s "
			         "(mbedTLS error %d)",
			    noted_path, parsed);
		noted = NULL;
		free(noted_path);
		noted_path = NULL;
	}
	pthread_mutex_unlock(&tls_mu);
	return real_handshake(ssl);
}

const char *
gittls_noted(void)
{
	const char *p;

	pthread_mutex_lock(&tls_mu);
	p = noted_path;
	pthread_mutex_unlock(&tls_mu);
	return p;
}

int
gittls_parsed(void)
{
	int r;

	pthread_mutex_lock(&tls_mu);
	r = parsed;
	pthread_mutex_unlock(&tls_mu);
	return r;
}
