#include "parsers/imapurl.h"

#include <string.h>

#include "util/ascii.h"

/* Percent-decode s[0..n) into out (size outn); false on a bad escape,
 * a control character or a NUL, or when it does not fit. */
static bool
decode(const char *s, size_t n, char *out, size_t outn)
{
	size_t i, o = 0;

	for (i = 0; i < n; i++) {
		int c = (unsigned char)s[i];

		if (c == '%') {
			int hi, lo;

			if (n - i < 3)
				return false;
			hi = ascii_hexval(s[i + 1]);
			lo = ascii_hexval(s[i + 2]);
			if (hi < 0 || lo < 0)
				return false;
			c = hi << 4 | lo;
			i += 2;
		}
		if (c < 0x20 || c == 0x7f || o + 1 >= outn)
			return false;
		out[o++] = (char)c;
	}
	out[o] = '\0';
	return true;
}

static enum err
fail(const char **why, const char *msg)
{
	*why = msg;
	return ERR_PARSE;
}

/* host[:port] or [v6][:port] of s[0..n). */
static enum err
host_port(const char *s, size_t n, struct imapurl *u, const char **why)
{
	const char *colon = NULL, *h = s;
	size_t hn, i;
	long v;

	if (n > 0 && s[0] == '[') {
		const char *close = memchr(s, ']', n);

		if (close == NULL)
			return fail(why, "an IPv6 address without ']'");
		h = s + 1;
		hn = (size_t)(close - h);
		if (close + 1 < s + n) {
			if (close[1] != ':')
				return fail(why, "junk after ']'");
			colon = close + 1;
		}
	} else {
		colon = memchr(s, ':', n);
		hn = colon ? (size_t)(colon - s) : n;
	}
	if (hn == 0 || hn >= sizeof(u->host))
		return fail(why, "no host, or one too long");
	for (i = 0; i < hn; i++)
		if (!ascii_isalnum(h[i]) && !strchr(".-_:", h[i]))
			return fail(why, "a host name with a bad character");
	memcpy(u->host, h, hn);
	u->host[hn] = '\0';
	if (colon == NULL)
		return ERR_OK;
	n -= (size_t)(colon + 1 - s);
	s = colon + 1;
	if (n == 0 || n > 5)
		return fail(why, "a bad port");
	for (i = 0, v = 0; i < n; i++) {
		if (!ascii_isdigit(s[i]))
			return fail(why, "a bad port");
		v = v * 10 + (s[i] - '0');
	}
	if (v == 0 || v > 65535)
		return fail(why, "a port out of range");
	memcpy(u->port, s, n);
	u->port[n] = '\0';
	return ERR_OK;
}

enum err
imapurl_parse(const char *s, struct imapurl *u, const char **why)
{
	const char *auth, *path, *at;
	size_t an;
	enum err e;

	memset(u, 0, sizeof(*u));
	*why = NULL;
	if (strncmp(s, "imaps://", 8) == 0) {
		u->tls = true;
		auth = s + 8;
	} else if (strncmp(s, "imap://", 7) == 0) {
		auth = s + 7;
	} else {
		return fail(why, "not an imap:// or imaps:// URL");
	}
	strcpy(u->port, u->tls ? "993" : "143");
	path = strchr(auth, '/');
	an = path ? (size_t)(path - auth) : strlen(auth);
	at = memchr(auth, '@', an);
	if (at != NULL) {
		/* ";AUTH=..." is not ours to choose: LOGIN is what we do. */
		const char *semi = memchr(auth, ';', (size_t)(at - auth));
		size_t un = (size_t)((semi ? semi : at) - auth);

		if (!decode(auth, un, u->user, sizeof(u->user)))
			return fail(why, "a bad user name");
		an -= (size_t)(at + 1 - auth);
		auth = at + 1;
	}
	if ((e = host_port(auth, an, u, why)) != ERR_OK)
		return e;
	if (path == NULL || path[1] == '\0') {
		strcpy(u->mailbox, "INBOX");
		return ERR_OK;
	}
	path++;
	if (strpbrk(path, "?#;") != NULL)
		return fail(why, "a mailbox with a query, fragment or ';'");
	if (!decode(path, strlen(path), u->mailbox, sizeof(u->mailbox)))
		return fail(why, "a bad mailbox name");
	if (strpbrk(u->mailbox, "\"\\*%") != NULL)
		return fail(
		    why, "a mailbox name with '\"', '\\\\', '*' or '%'");
	return ERR_OK;
}
