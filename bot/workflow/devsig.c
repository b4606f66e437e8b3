/*
 * Developer signatures checked against auth.keyring: the key of a
 * signature is the file KEYRING/ed25519/<domain>/<local>/<selector>, as
 * patatt's make_pkey_path() names it (every part lower-cased and escaped
 * with Python's urllib.parse.quote_plus()), holding the base64 of the
 * 32-byte public key.  patatt's own `patatt genkey` makes "default" a
 * symbolic link to a selector; links are followed (the keyring is the
 * operator's).  The parts come from the mail, so they are checked before
 * they become a file name: printable ASCII, no '/', no leading '.'.
 */
#include "bot/workflow/devsig.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "parsers/addr.h"
#include "parsers/patatt.h"
#include "util/ascii.h"
#include "util/base64.h"
#include "util/buf.h"
#include "util/log.h"

/* The longest local part and selector taken (RFC 5321 §4.5.3.1.1: a
 * local part is at most 64 octets), and the longest domain (RFC 1035). */
#define PART_MAX 64
#define DOMAIN_MAX 253

/* A key file holds 44 bytes of base64 and a line break; a bigger file is
 * no key of patatt's, and is not read further. */
#define KEYFILE_MAX 256

/* How far a signature got, worst first: of several signatures none of
 * which verifies, the reason told is that of the one that got furthest. */
enum rank {
	RANK_NONE,
	RANK_OTHER_KIND, /* openpgp, openssh, unknown: not verified here */
	RANK_NO_KEY, /* no key file, or i= or s= names none */
	RANK_BAD_KEY, /* a key file we cannot use */
	RANK_BAD_SIG, /* the signature does not verify */
	RANK_BODY, /* it does, but the body is not the one signed */
	RANK_OK,
};

enum key {
	KEY_OK,
	KEY_MISSING,
	KEY_BAD,
};

/*
 * Append '/' and one part of a key's path to b, as patatt makes it: lower
 * case, every byte but letters, digits and "_.-~" as %XX.  false, with
 * nothing appended, when the part is empty, longer than max, starts
 * with '.', or holds anything but printable ASCII, or '/' or '\'.
 */
static bool
put_part(struct buf *b, const char *p, size_t n, size_t max)
{
	size_t i;

	if (n == 0 || n > max || p[0] == '.')
		return false;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)p[i];

		if (c <= ' ' || c >= 0x7f || c == '/' || c == '\\')
			return false;
	}
	buf_addc(b, '/');
	for (i = 0; i < n; i++) {
		char c = ascii_tolower(p[i]);

		if (ascii_isalnum(c) || c == '_' || c == '.' || c == '-' ||
		    c == '~')
			buf_addc(b, c);
		else
			buf_addf(b, "%%%02X", (unsigned char)c);
	}
	return true;
}

/* The key file of s under keyring, or NULL when i= or s= cannot name
 * one (patatt too wants "local@domain"). */
static const char *
key_path(struct arena *a, const char *keyring, const struct patatt_sig *s)
{
	struct buf b;
	const char *at;
	const char *path = NULL;

	if (s->identity == NULL || (at = strchr(s->identity, '@')) == NULL)
		return NULL;
	buf_init(&b, PATH_MAX - 1);
	buf_adds(&b, keyring);
	buf_adds(&b, "/ed25519");
	if (put_part(&b, at + 1, strlen(at + 1), DOMAIN_MAX) &&
	    put_part(&b, s->identity, (size_t)(at - s->identity), PART_MAX) &&
	    put_part(&b, s->selector, strlen(s->selector), PART_MAX) &&
	    buf_fits(&b, 0))
		path = arena_strdup(a, buf_cstr(&b));
	buf_free(&b);
	return path;
}

/* Read up to KEYFILE_MAX + 1 bytes of a regular file; -1 with errno. */
static ssize_t
read_small(const char *path, char *out)
{
	struct stat st;
	ssize_t n = 0, r;
	int fd, saved;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0) {
		saved = errno;
		close(fd);
		errno = saved;
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		errno = EINVAL; /* a folder, a FIFO: no key file */
		return -1;
	}
	while (n <= KEYFILE_MAX) {
		r = read(fd, out + n, (size_t)(KEYFILE_MAX + 1 - n));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			saved = errno;
			close(fd);
			errno = saved;
			return -1;
		}
		if (r == 0)
			break;
		n += r;
	}
	close(fd);
	return n;
}

/* The public key in path.  A missing file is no key; one that cannot be
 * read or holds no key is the operator's to fix: logged. */
static enum key
read_key(const char *path, unsigned char pub[32])
{
	char text[KEYFILE_MAX + 1], q[256];
	char raw[KEYFILE_MAX + 1];
	ssize_t n = read_small(path, text);
	size_t len;
	bool bad = false;

	if (n < 0 && (errno == ENOENT || errno == ENOTDIR))
		return KEY_MISSING;
	if (n < 0) {
		log_warn("devsig: %s: %s",
		    log_quote(q, sizeof(q), path, strlen(path)),
		    strerror(errno));
		return KEY_BAD;
	}
	len = n > KEYFILE_MAX ? 0 : base64_decode(raw, text, (size_t)n, &bad);
	if (bad || len != 32) {
		log_warn("devsig: %s: not the base64 of an ed25519 public key",
		    log_quote(q, sizeof(q), path, strlen(path)));
		return KEY_BAD;
	}
	memcpy(pub, raw, 32);
	return KEY_OK;
}

/* How far the signature s gets against keyring; *why says why not. */
static enum rank
check(struct arena *a, const char *keyring, const struct patatt_sig *s,
    const char **why)
{
	unsigned char pub[32];
	const char *path;

	switch (s->kind) {
	case PATATT_OPENPGP:
		*why = "an openpgp developer signature (not verified)";
		return RANK_OTHER_KIND;
	case PATATT_OPENSSH:
		*why = "an openssh developer signature (not verified)";
		return RANK_OTHER_KIND;
	case PATATT_UNKNOWN:
		*why = "a developer signature of an unknown kind (a=)";
		return RANK_OTHER_KIND;
	case PATATT_ED25519:
		break;
	}
	path = key_path(a, keyring, s);
	if (path == NULL) {
		*why = "a developer signature whose i= or s= names no key";
		return RANK_NO_KEY;
	}
	switch (read_key(path, pub)) {
	case KEY_MISSING:
		*why = arena_printf(a,
		    "no key for %s (selector %s) in "
		    "auth.keyring",
		    s->identity, s->selector);
		return RANK_NO_KEY;
	case KEY_BAD:
		*why = arena_printf(a,
		    "the key for %s (selector %s) in "
		    "auth.keyring cannot be used",
		    s->identity, s->selector);
		return RANK_BAD_KEY;
	case KEY_OK:
		break;
	}
	if (patatt_verify(s, pub))
		return RANK_OK;
	if (!s->body_ok && patatt_verify_headers(s, pub)) {
		*why = "the body changed after the developer signature";
		return RANK_BODY;
	}
	*why = "developer signature does not verify";
	return RANK_BAD_SIG;
}

const char *
devsig_identity(struct arena *a, const char *keyring, const char *raw, size_t n,
    const char *want, const char **why)
{
	struct patatt_sig *sigs;
	const char *other = NULL; /* verified, but someone else's */
	enum rank best = RANK_NONE;
	size_t nsigs, k;
	enum err e;

	*why = "no developer signature";
	e = patatt_parse(a, raw, n, &sigs, &nsigs);
	if (e != ERR_OK) {
		*why =
		    "the mail is over a limit: developer signatures not read";
		return NULL;
	}
	if (nsigs == 0)
		return NULL;
	if (keyring == NULL) {
		*why = "auth.keyring is not set";
		return NULL;
	}
	for (k = 0; k < nsigs; k++) {
		const char *w = NULL;
		enum rank r = check(a, keyring, &sigs[k], &w);

		if (r == RANK_OK) {
			if (want == NULL || addr_same(sigs[k].identity, want))
				return sigs[k].identity;
			if (other == NULL)
				other = sigs[k].identity;
			continue;
		}
		if (r > best) {
			best = r;
			*why = w;
		}
	}
	return other;
}
