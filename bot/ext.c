/*
 * The binary's side of the parts it loads at first use.
 *
 * IMAP (libetpan and GnuTLS), SMTP and the public-inbox manifest
 * (libcurl) and the web server
 * (libmicrohttpd, jansson) pull in about 25 shared libraries: loading
 * and relocating them took 8 ms of every start of the binary, half of a
 * `patchyard list` or of a per-mail `patchyard ingest`, though most commands
 * use none of them.  The Makefile links those files into a shared object of
 * their own (patchyard-ext.so) and puts its bytes into the binary; the first
 * call into one of them lands here, and the object is loaded from a memory file
 * (so the binary still works alone, from any folder).  It finds everything else
 * (util, parsers, storage) in the binary, which exports its symbols for it.
 * Tests link the same files directly (docs/DECISIONS.md, "Network parts are
 * loaded at first use").
 *
 * Only the binary links this file: each function below has the name and
 * type of the real one (their headers say so) and calls it.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bot/mailout/smtp.h"
#include "bot/source/imap.h"
#include "bot/source/pubinbox_http.h"
#include "bot/web/webpub.h"
#include "bot/web/websrv.h"
#include "util/fdio.h"

/* bot/ext_blob.S (made by the Makefile): the shared object's bytes. */
extern const unsigned char yard_ext_so[];
extern const unsigned char yard_ext_so_end[];

static pthread_once_t once = PTHREAD_ONCE_INIT;
static void *handle;

/* Nothing can go on without it: a shared library it needs is missing. */
static void
die(const char *what, const char *why)
{
	fprintf(stderr,
	    "patchyard: cannot load its IMAP, SMTP and web parts: %s: "
	    "%s\n",
	    what, why);
	exit(1);
}

static void
load(void)
{
	const unsigned char *p = yard_ext_so;
	size_t n = (size_t)(yard_ext_so_end - yard_ext_so);
	char path[64];
	int fd = memfd_create("patchyard-ext.so", MFD_CLOEXEC);

	if (fd < 0)
		die("memfd_create", strerror(errno));
	if (fd_write_all(fd, p, n) != 0)
		die("write", strerror(errno));
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	/* Its own names bind to itself (-Bsymbolic); the binary's are
	 * found in the binary. */
	handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (handle == NULL)
		die("dlopen", dlerror());
	close(fd); /* the mapping keeps it */
}

static void *
sym(const char *name)
{
	void *f;

	pthread_once(&once, load);
	f = dlsym(handle, name);
	if (f == NULL)
		die(name, dlerror());
	return f;
}

/* The real function of this name, with this function's type. */
#define EXT(fn) ((__typeof__(&fn))sym(#fn))

/* bot/source/imap.h */

enum err
imap_connect(
    const struct imap_config *c, struct imap **out, char *err, size_t errn)
{
	return EXT(imap_connect)(c, out, err, errn);
}

enum err
imap_open_fd(const struct imap_config *c, int fd, struct imap **out, char *err,
    size_t errn)
{
	return EXT(imap_open_fd)(c, fd, out, err, errn);
}

void
imap_close(struct imap *im)
{
	EXT(imap_close)(im);
}

uint32_t
imap_uidvalidity(const struct imap *im)
{
	return EXT(imap_uidvalidity)(im);
}

bool
imap_has_idle(const struct imap *im)
{
	return EXT(imap_has_idle)(im);
}

enum err
imap_search(struct imap *im, uint32_t after, uint32_t **uids, size_t *n,
    char *err, size_t errn)
{
	return EXT(imap_search)(im, after, uids, n, err, errn);
}

enum err
imap_fetch(struct imap *im, const uint32_t *uids, size_t n, size_t limit,
    imap_mail_fn *fn, void *arg, char *err, size_t errn)
{
	return EXT(imap_fetch)(im, uids, n, limit, fn, arg, err, errn);
}

enum err
imap_mark(struct imap *im, const uint32_t *uids, size_t n, const char *seen,
    char *err, size_t errn)
{
	return EXT(imap_mark)(im, uids, n, seen, err, errn);
}

bool
imap_news(struct imap *im)
{
	return EXT(imap_news)(im);
}

enum err
imap_idle(struct imap *im, char *err, size_t errn)
{
	return EXT(imap_idle)(im, err, errn);
}

int
imap_fd(const struct imap *im)
{
	return EXT(imap_fd)(im);
}

bool
imap_ready(struct imap *im)
{
	return EXT(imap_ready)(im);
}

enum err
imap_idle_done(struct imap *im, char *err, size_t errn)
{
	return EXT(imap_idle_done)(im, err, errn);
}

/* bot/source/pubinbox_http.h */

enum err
pubinbox_http_get(const char *url, size_t max, volatile sig_atomic_t *stop,
    char **out, size_t *n, char *err, size_t errn)
{
	return EXT(pubinbox_http_get)(url, max, stop, out, n, err, errn);
}

/* bot/mailout/smtp.h */

enum err
smtp_new(const struct smtp_config *c, struct smtp **out)
{
	return EXT(smtp_new)(c, out);
}

void
smtp_free(struct smtp *s)
{
	EXT(smtp_free)(s);
}

void
smtp_result_init(struct smtp_result *r)
{
	EXT(smtp_result_init)(r);
}

void
smtp_result_free(struct smtp_result *r)
{
	EXT(smtp_result_free)(r);
}

enum smtp_status
smtp_send(struct smtp *s, const char *from, const char *rcpts, const char *msg,
    size_t n, struct smtp_result *r)
{
	return EXT(smtp_send)(s, from, rcpts, msg, n, r);
}

const char *
smtp_status_str(enum smtp_status st)
{
	return EXT(smtp_status_str)(st);
}

/* bot/web/websrv.h, bot/web/webpub.h */

enum err
websrv_run(const struct config *conf, const struct websrv_opts *o)
{
	return EXT(websrv_run)(conf, o);
}

enum err
webpub_run(const struct config *conf, struct store *st, const char *dir,
    struct webpub_stats *stats)
{
	return EXT(webpub_run)(conf, st, dir, stats);
}
