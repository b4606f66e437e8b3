/*
 * The SMTP client: libcurl behind our own words (smtp.h).  curl runs the
 * dialogue; we read it through the debug callback, to know which
 * recipient got which reply and whether the relay acknowledged the data,
 * which curl's return code alone does not say.
 *
 * One session per struct smtp (DESIGN.md §8): the easy handle lives as
 * long as the struct, and libcurl keeps its connection open between
 * transfers, so the mails of a send run share one connection, one TLS
 * handshake and one AUTH; smtp_free() says QUIT.  Everything the handle
 * points to (the transfer's state, the error buffer) lives in the struct
 * too, since libcurl calls back when it closes the connection.
 */
#include "bot/mailout/smtp.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bot/mailout/mailout.h"
#include "util/ascii.h"
#include "util/base64.h"
#include "util/log.h"
#include "util/xalloc.h"

enum phase {
	PHASE_CONNECT, /* greeting, EHLO, STARTTLS, AUTH */
	PHASE_MAIL,
	PHASE_RCPT,
	PHASE_DATA, /* the DATA command */
	PHASE_BODY, /* after 354: the next reply acknowledges the data */
	PHASE_DONE, /* the data was acknowledged (or refused) */
	PHASE_QUIT /* saying goodbye: replies no longer matter */
};

/* One transfer: what we upload and what we saw. */
struct xfer {
	const char *msg;
	size_t n, off;
	/* The same message with a quoted-printable body, when its body is
	 * 8bit: sent instead unless the relay offers 8BITMIME. */
	const char *msg7;
	size_t n7;
	/* The connection's last EHLO reply listed 8BITMIME: kept from
	 * transfer to transfer, as a connection kept open is not greeted
	 * again. */
	bool offers_8bit;
	bool chosen; /* the data to send was chosen */
	enum phase phase;
	enum phase quit_from; /* the phase QUIT ended */
	char rcpt[256]; /* the recipient of the RCPT in flight */
	bool accepted; /* the data got a 2xx */
	int last_code; /* the last final reply */
	char last_err[256]; /* the last 4xx/5xx reply line */
	struct buf in; /* a reply line being assembled */
	struct smtp_result *r; /* NULL between transfers */
};

struct smtp {
	char *url; /* as configured */
	bool url_has_path;
	bool implicit_tls;
	enum conf_tls starttls;
	char *ca_file;
	char *pin; /* curl's form: "sha256//<base64>[;...]" */
	char *user;
	char *password;
	char *helo;
	long connect_timeout;
	long timeout;
	/* The session: the handle, made at the first send, and what it
	 * points to. */
	CURL *h;
	char *h_url; /* the URL it was given: with the EHLO name as path */
	struct xfer x;
	char errbuf[CURL_ERROR_SIZE];
};

/* ---- configuration ----------------------------------------------------- */

static bool
hostname_ok(const char *h)
{
	size_t i;

	if (h == NULL || *h == '\0' || strlen(h) > 253)
		return false;
	for (i = 0; h[i]; i++)
		if (!ascii_isalnum(h[i]) && h[i] != '-' && h[i] != '.')
			return false;
	return true;
}

/* The pin in curl's form, or NULL when it is neither 64 hex digits
 * (colons allowed) nor "sha256//..." hashes of the right length. */
static char *
pin_to_curl(const char *pin)
{
	unsigned char h[32];
	char out[64];
	size_t n = 0;
	const char *p;

	if (strncmp(pin, "sha256//", 8) == 0) {
		for (p = pin; *p; p++)
			if (!ascii_isalnum(*p) && !strchr("+/=;", *p))
				return NULL;
		for (p = pin; p; p = strchr(p, ';'), p = p ? p + 1 : NULL)
			if (strncmp(p, "sha256//", 8) != 0 ||
			    strcspn(p + 8, ";") != 44)
				return NULL;
		return xstrdup(pin);
	}
	for (p = pin; *p; p++) {
		int hi, lo;

		if (*p == ':')
			continue;
		if (n == 32 || (hi = ascii_hexval(p[0])) < 0 || p[1] == '\0' ||
		    (lo = ascii_hexval(p[1])) < 0)
			return NULL;
		h[n++] = (unsigned char)(hi << 4 | lo);
		p++;
	}
	if (n != 32)
		return NULL;
	memcpy(out, "sha256//", 8);
	base64_encode(out + 8, h, 32);
	return xstrdup(out);
}

/* Parse and check the URL; keep what send needs. */
static enum err
check_url(struct smtp *s, const char *url)
{
	CURLU *u = curl_url();
	char *scheme = NULL, *host = NULL, *user = NULL, *path = NULL;
	enum err e = ERR_CONFIG;

	if (u == NULL)
		fatal("smtp: out of memory");
	if (curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK) {
		log_err("smtp: %s: not a URL", url);
		goto out;
	}
	if (strcmp(scheme, "smtp") != 0 && strcmp(scheme, "smtps") != 0) {
		log_err("smtp: %s: not an smtp:// or smtps:// URL", url);
		goto out;
	}
	if (curl_url_get(u, CURLUPART_USER, &user, 0) == CURLUE_OK) {
		log_err("smtp: %s: credentials belong in smtp.user and "
		        "smtp.password-file, not in the URL",
		    url);
		goto out;
	}
	if (curl_url_get(u, CURLUPART_PATH, &path, 0) == CURLUE_OK && path &&
	    strcmp(path, "/") != 0 && path[0] != '\0')
		s->url_has_path = true;
	s->implicit_tls = strcmp(scheme, "smtps") == 0;
	s->url = xstrdup(url);
	e = ERR_OK;
out:
	curl_free(scheme);
	curl_free(host);
	curl_free(user);
	curl_free(path);
	curl_url_cleanup(u);
	return e;
}

static enum err
check_config(struct smtp *s, const struct smtp_config *c)
{
	if (c->url == NULL || check_url(s, c->url) != ERR_OK)
		return ERR_CONFIG;
	if (c->ca_file && access(c->ca_file, R_OK) != 0) {
		log_err("smtp: %s: cannot read the CA file", c->ca_file);
		return ERR_CONFIG;
	}
	if (c->pin_sha256 && (s->pin = pin_to_curl(c->pin_sha256)) == NULL) {
		log_err("smtp: pin-sha256: want the SHA-256 of the server's "
		        "public key, as 64 hex digits or sha256//<base64>");
		return ERR_CONFIG;
	}
	if (c->user && c->password == NULL) {
		log_err("smtp: user %s has no password", c->user);
		return ERR_CONFIG;
	}
	if (c->helo && !hostname_ok(c->helo)) {
		log_err("smtp: %s: not a host name for EHLO", c->helo);
		return ERR_CONFIG;
	}
	if (c->user && !s->implicit_tls && c->starttls == CONF_TLS_NEVER)
		log_warn("smtp: %s: the password goes out unencrypted "
		         "(starttls = never)",
		    c->url);
	return ERR_OK;
}

enum err
smtp_new(const struct smtp_config *c, struct smtp **out)
{
	struct smtp *s = xcalloc(1, sizeof(*s));

	*out = NULL;
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		log_err("smtp: libcurl cannot start");
		free(s);
		return ERR_CONFIG;
	}
	if (check_config(s, c) != ERR_OK) {
		smtp_free(s);
		return ERR_CONFIG;
	}
	s->starttls = c->starttls;
	s->ca_file = c->ca_file ? xstrdup(c->ca_file) : NULL;
	s->user = c->user ? xstrdup(c->user) : NULL;
	s->password = c->password ? xstrdup(c->password) : NULL;
	s->helo = c->helo ? xstrdup(c->helo) : NULL;
	s->connect_timeout = c->connect_timeout > 0 ? c->connect_timeout : 30;
	s->timeout = c->timeout > 0 ? c->timeout : 300;
	buf_init(&s->x.in, 4096);
	*out = s;
	return ERR_OK;
}

void
smtp_free(struct smtp *s)
{
	if (s == NULL)
		return;
	/* QUIT, and the connection closed. */
	curl_easy_cleanup(s->h);
	buf_free(&s->x.in);
	free(s->h_url);
	if (s->password)
		explicit_bzero(s->password, strlen(s->password));
	free(s->url);
	free(s->ca_file);
	free(s->pin);
	free(s->user);
	free(s->password);
	free(s->helo);
	free(s);
	curl_global_cleanup();
}

void
smtp_result_init(struct smtp_result *r)
{
	memset(r, 0, sizeof(*r));
	buf_init(&r->rejected, 0);
	buf_init(&r->deferred, 0);
}

void
smtp_result_free(struct smtp_result *r)
{
	buf_free(&r->rejected);
	buf_free(&r->deferred);
}

const char *
smtp_status_str(enum smtp_status st)
{
	switch (st) {
	case SMTP_OK:
		return "sent";
	case SMTP_TEMP:
		return "temporary failure";
	case SMTP_PERM:
		return "permanent failure";
	case SMTP_CONFIG:
		return "configuration error";
	}
	return "unknown";
}

/* ---- reading the dialogue ---------------------------------------------- */

static size_t
read_cb(char *buf, size_t size, size_t nitems, void *arg)
{
	struct xfer *x = arg;
	size_t n = size * nitems;

	/* The relay has answered EHLO by now (curl reads after DATA). */
	if (!x->chosen) {
		x->chosen = true;
		if (x->msg7 && !x->offers_8bit) {
			x->msg = x->msg7;
			x->n = x->n7;
			log_debug("smtp: no 8BITMIME: the body goes "
			          "quoted-printable");
		}
	}
	if (n > x->n - x->off)
		n = x->n - x->off;
	memcpy(buf, x->msg + x->off, n);
	x->off += n;
	return n;
}

/* A reply line as we keep it: printable ASCII, without its CRLF. */
static void
keep_line(char *out, size_t outn, const char *p, size_t n)
{
	size_t i, o = 0;

	for (i = 0; i < n && o + 1 < outn; i++) {
		char c = p[i];

		if (c == '\r' || c == '\n')
			break;
		out[o++] = (c >= 0x20 && c < 0x7f) ? c : '?';
	}
	out[o] = '\0';
}

static void
on_command(struct xfer *x, const char *p, size_t n)
{
	struct str line = str_make(p, n);
	long lt, gt;

	if (str_istartswith(line, "MAIL FROM:")) {
		x->phase = PHASE_MAIL;
	} else if (str_istartswith(line, "RCPT TO:")) {
		x->phase = PHASE_RCPT;
		lt = str_find(line, '<');
		gt = str_find(line, '>');
		x->rcpt[0] = '\0';
		if (lt >= 0 && gt > lt)
			keep_line(x->rcpt, sizeof(x->rcpt), p + lt + 1,
			    (size_t)(gt - lt - 1));
	} else if (str_ieqs(str_rtrim(line), "DATA")) {
		x->phase = PHASE_DATA;
	} else if (str_ieqs(str_rtrim(line), "QUIT")) {
		x->quit_from = x->phase;
		x->phase = PHASE_QUIT;
	} else if (str_istartswith(line, "EHLO ")) {
		/* After STARTTLS the second EHLO's reply is the one that
		 * counts. */
		x->offers_8bit = false;
	}
	/* EHLO, STARTTLS, AUTH and its (secret) continuation lines: nothing
	 * to keep.  DATA and QUIT are matched whole so that no base64 line
	 * of AUTH can pass for them. */
}

static void
on_reply(struct xfer *x, int code, const char *p, size_t n)
{
	struct buf *list = NULL;

	if (x->phase == PHASE_QUIT)
		return;
	x->last_code = code;
	if (code >= 400)
		keep_line(x->last_err, sizeof(x->last_err), p, n);
	switch (x->phase) {
	case PHASE_RCPT:
		if (x->r == NULL)
			break;
		if (code >= 500)
			list = &x->r->rejected;
		else if (code >= 400)
			list = &x->r->deferred;
		if (list && x->rcpt[0]) {
			buf_adds(list, x->rcpt);
			buf_addc(list, '\n');
		}
		break;
	case PHASE_DATA:
		if (code == 354)
			x->phase = PHASE_BODY;
		break;
	case PHASE_BODY:
		x->accepted = code >= 200 && code < 300;
		x->phase = PHASE_DONE;
		break;
	default:
		break;
	}
}

/* The code of a final reply line ("250 ok", "250"), or -1 for a
 * continuation ("250-...") or junk. */
static int
reply_code(struct str line)
{
	if (line.n < 3 || !ascii_isdigit(line.p[0]) ||
	    !ascii_isdigit(line.p[1]) || !ascii_isdigit(line.p[2]) ||
	    (line.n > 3 && line.p[3] != ' '))
		return -1;
	return (line.p[0] - '0') * 100 + (line.p[1] - '0') * 10 +
	    (line.p[2] - '0');
}

/* Feed the complete lines received so far to on_reply. */
static void
on_reply_bytes(struct xfer *x, const char *p, size_t n)
{
	struct str rest, line;
	size_t used = 0;
	int code;

	if (buf_fits(&x->in, n))
		buf_add(&x->in, p, n);
	else
		buf_reset(&x->in); /* a reply line over the cap is junk */
	rest = buf_str(&x->in);
	while (rest.n && str_find(rest, '\n') >= 0) {
		str_nextline(&rest, &line);
		used = (size_t)(rest.p - x->in.p);
		/* An EHLO reply line ("250-8BITMIME", "250 8BITMIME"). */
		if (x->phase == PHASE_CONNECT && line.n >= 12 &&
		    str_startswith(line, "250") &&
		    (line.p[3] == '-' || line.p[3] == ' ') &&
		    str_ieqs(str_rtrim(str_skip(line, 4)), "8BITMIME"))
			x->offers_8bit = true;
		if ((code = reply_code(line)) >= 0)
			on_reply(x, code, line.p, line.n);
	}
	if (used) {
		memmove(x->in.p, x->in.p + used, x->in.n - used);
		x->in.n -= used;
		x->in.p[x->in.n] = '\0';
	}
}

static int
debug_cb(CURL *h, curl_infotype type, char *p, size_t n, void *arg)
{
	struct xfer *x = arg;
	char q[256];

	(void)h;
	if (type == CURLINFO_HEADER_IN) {
		on_reply_bytes(x, p, n);
	} else if (type == CURLINFO_HEADER_OUT) {
		on_command(x, p, n);
	} else if (type == CURLINFO_TEXT && log_get_level() >= LOG_DEBUG) {
		/* A line of curl's, with its line end: the log adds one. */
		while (n > 0 && (p[n - 1] == '\n' || p[n - 1] == '\r'))
			n--;
		log_debug("smtp: curl: %s", log_quote(q, sizeof(q), p, n));
	}
	return 0;
}

/* ---- sending ----------------------------------------------------------- */

/* What failed, by curl's code and the last reply the relay gave. */
static enum smtp_status
classify(CURLcode rc, const struct xfer *x, const struct smtp_result *r)
{
	int cls = x->last_code / 100;
	enum phase phase = x->phase == PHASE_QUIT ? x->quit_from : x->phase;

	if (x->accepted || rc == CURLE_OK)
		return SMTP_OK;
	switch (rc) {
	case CURLE_UNSUPPORTED_PROTOCOL:
	case CURLE_URL_MALFORMAT:
	case CURLE_NOT_BUILT_IN:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_CERTPROBLEM:
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
	case CURLE_SSL_ISSUER_ERROR:
	case CURLE_AUTH_ERROR:
		return SMTP_CONFIG;
	case CURLE_USE_SSL_FAILED:
	case CURLE_LOGIN_DENIED:
	case CURLE_REMOTE_ACCESS_DENIED:
		return cls == 4 ? SMTP_TEMP : SMTP_CONFIG;
	default:
		break;
	}
	if (cls == 4)
		return SMTP_TEMP;
	if (cls == 5 && phase == PHASE_CONNECT)
		return SMTP_CONFIG;
	/* 530 and 535 after EHLO: the relay wants AUTH (or other
	 * credentials) before it takes mail from us. */
	if (x->last_code == 530 || x->last_code == 535)
		return SMTP_CONFIG;
	if (cls == 5 && phase == PHASE_RCPT)
		return r->deferred.n ? SMTP_TEMP : SMTP_PERM;
	if (cls == 5)
		return SMTP_PERM;
	return SMTP_TEMP;
}

static bool
eight_bit(const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if ((unsigned char)p[i] >= 0x80)
			return true;
	return false;
}

/* Envelope recipients as curl takes them; invalid ones are refused. */
static struct curl_slist *
rcpt_list(const char *rcpts, struct smtp_result *r)
{
	struct curl_slist *l = NULL, *nl;
	struct str rest = str_from(rcpts), line;
	char addr[300], q[128];

	while (str_nextline(&rest, &line)) {
		line = str_trim(line);
		if (line.n == 0)
			continue;
		if (line.n >= 256 ||
		    snprintf(addr, sizeof(addr), "%.*s", (int)line.n, line.p) <
		        0 ||
		    !mailout_addr_valid(addr)) {
			log_quote(q, sizeof(q), line.p, line.n);
			buf_adds(&r->rejected, q);
			buf_addc(&r->rejected, '\n');
			continue;
		}
		snprintf(addr, sizeof(addr), "<%.*s>", (int)line.n, line.p);
		if ((nl = curl_slist_append(l, addr)) == NULL)
			fatal("smtp: out of memory");
		l = nl;
	}
	return l;
}

/* The URL with the EHLO name as its path. */
static char *
send_url(const struct smtp *s, const char *from)
{
	const char *at = strrchr(from, '@');
	const char *helo = s->helo ? s->helo : (at ? at + 1 : NULL);
	struct buf b = BUF_INIT;
	size_t n = strlen(s->url);

	if (s->url_has_path || helo == NULL || !hostname_ok(helo))
		return xstrdup(s->url);
	buf_add(&b, s->url, n && s->url[n - 1] == '/' ? n - 1 : n);
	buf_addf(&b, "/%s", helo);
	return buf_detach(&b, NULL);
}

static void
set_tls(CURL *h, const struct smtp *s)
{
	long use = CURLUSESSL_ALL;

	if (!s->implicit_tls && s->starttls == CONF_TLS_TRY)
		use = CURLUSESSL_TRY;
	else if (!s->implicit_tls && s->starttls == CONF_TLS_NEVER)
		use = CURLUSESSL_NONE;
	curl_easy_setopt(h, CURLOPT_USE_SSL, use);
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 2L);
	if (s->ca_file)
		curl_easy_setopt(h, CURLOPT_CAINFO, s->ca_file);
	if (s->pin)
		curl_easy_setopt(h, CURLOPT_PINNEDPUBLICKEY, s->pin);
}

/* What holds for every transfer of the session. */
static void
set_options(struct smtp *s)
{
	CURL *h = s->h;

	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "smtp,smtps");
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, s->errbuf);
	curl_easy_setopt(h, CURLOPT_VERBOSE, 1L);
	curl_easy_setopt(h, CURLOPT_DEBUGFUNCTION, debug_cb);
	curl_easy_setopt(h, CURLOPT_DEBUGDATA, &s->x);
	curl_easy_setopt(h, CURLOPT_UPLOAD, 1L);
	curl_easy_setopt(h, CURLOPT_READFUNCTION, read_cb);
	curl_easy_setopt(h, CURLOPT_READDATA, &s->x);
	curl_easy_setopt(h, CURLOPT_MAIL_RCPT_ALLLOWFAILS, 1L);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, s->connect_timeout);
	curl_easy_setopt(h, CURLOPT_SERVER_RESPONSE_TIMEOUT, s->timeout);
	curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, s->timeout);
	set_tls(h, s);
	if (s->user) {
		curl_easy_setopt(h, CURLOPT_USERNAME, s->user);
		curl_easy_setopt(h, CURLOPT_PASSWORD, s->password);
	}
}

static void
finish(struct smtp_result *r, CURLcode rc, const struct xfer *x,
    const char *errbuf)
{
	const char *why = errbuf[0] ? errbuf : curl_easy_strerror(rc);

	r->status = classify(rc, x, r);
	r->code = x->last_code;
	if (r->status == SMTP_OK || x->last_code >= 400)
		memcpy(r->last_error, x->last_err, sizeof(r->last_error));
	else
		keep_line(
		    r->last_error, sizeof(r->last_error), why, strlen(why));
	/* No mail began: the relay was not reached, or not for mail. */
	r->unreachable = r->status == SMTP_TEMP && x->phase == PHASE_CONNECT;
}

/*
 * Whether the relay closed the session's connection, kept open from an
 * earlier mail, before it took this one (an idle timeout, a limit on
 * mails per connection, a restart), or said 421 (closing) to it.  libcurl
 * has dropped that connection then, and the mail goes again at once over
 * a new one.  A connection made for this mail that fails is this mail's
 * failure, and waits for its back-off (DESIGN.md §8).
 */
static bool
dropped(CURLcode rc, const struct xfer *x, long connects)
{
	if (connects > 0 || x->accepted || rc == CURLE_OK)
		return false;
	if (x->last_code == 421)
		return true;
	if (x->last_code >= 400)
		return false;
	switch (rc) {
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
	case CURLE_GOT_NOTHING:
	case CURLE_WEIRD_SERVER_REPLY:
	case CURLE_PARTIAL_FILE:
		return true;
	default:
		return false;
	}
}

/* Back to n bytes (what a transfer added after them goes). */
static void
cut(struct buf *b, size_t n)
{
	if (b->n > n) {
		b->n = n;
		b->p[n] = '\0';
	}
}

/* One transfer of the mail over the session; *connects gets the number
 * of connections libcurl made for it (0: the open one was used). */
static CURLcode
transfer(struct smtp *s, const char *msg, size_t n, const struct buf *seven,
    struct smtp_result *r, bool fresh, long *connects)
{
	struct xfer *x = &s->x;
	CURLcode rc;

	x->msg = msg;
	x->n = n;
	x->off = 0;
	x->msg7 = seven->n ? seven->p : NULL;
	x->n7 = seven->n;
	x->chosen = false;
	x->phase = x->quit_from = PHASE_CONNECT;
	x->rcpt[0] = '\0';
	x->accepted = false;
	x->last_code = 0;
	x->last_err[0] = '\0';
	buf_reset(&x->in);
	x->r = r;
	s->errbuf[0] = '\0';
	/* The larger of the two forms, for SIZE (RFC 1870): the one sent is
	 * chosen after EHLO, and a message smaller than declared is fine. */
	curl_easy_setopt(s->h, CURLOPT_INFILESIZE_LARGE,
	    (curl_off_t)(x->msg7 && x->n7 > x->n ? x->n7 : x->n));
	curl_easy_setopt(s->h, CURLOPT_FRESH_CONNECT, fresh ? 1L : 0L);
	rc = curl_easy_perform(s->h);
	x->r = NULL;
	if (curl_easy_getinfo(s->h, CURLINFO_NUM_CONNECTS, connects) !=
	    CURLE_OK)
		*connects = 1;
	return rc;
}

enum smtp_status
smtp_send(struct smtp *s, const char *from, const char *rcpts, const char *msg,
    size_t n, struct smtp_result *r)
{
	char fromarg[300];
	struct curl_slist *list = NULL;
	struct buf seven = BUF_INIT;
	size_t nrej, ndef;
	char *url = NULL;
	long connects = 0;
	CURLcode rc;

	smtp_result_free(r);
	smtp_result_init(r);
	if (eight_bit(msg, n) && mailout_7bit(msg, n, &seven) != ERR_OK)
		buf_reset(&seven);
	if (!mailout_addr_valid(from)) {
		snprintf(r->last_error, sizeof(r->last_error),
		    "not a valid sender address");
		r->status = SMTP_CONFIG;
		goto out;
	}
	if ((list = rcpt_list(rcpts ? rcpts : "", r)) == NULL) {
		snprintf(
		    r->last_error, sizeof(r->last_error), "no valid recipient");
		r->status = SMTP_PERM;
		goto out;
	}
	if (s->h == NULL) {
		if ((s->h = curl_easy_init()) == NULL)
			fatal("smtp: out of memory");
		set_options(s);
	}
	url = send_url(s, from);
	if (s->h_url == NULL || strcmp(url, s->h_url) != 0) {
		curl_easy_setopt(s->h, CURLOPT_URL, url);
		free(s->h_url);
		s->h_url = url;
		url = NULL;
	}
	snprintf(fromarg, sizeof(fromarg), "<%s>", from);
	curl_easy_setopt(s->h, CURLOPT_MAIL_FROM, fromarg);
	curl_easy_setopt(s->h, CURLOPT_MAIL_RCPT, list);
	nrej = r->rejected.n;
	ndef = r->deferred.n;
	rc = transfer(s, msg, n, &seven, r, false, &connects);
	r->connects = (int)connects;
	if (dropped(rc, &s->x, connects)) {
		log_info("smtp: %s: the relay closed the connection (%s): "
		         "sending again over a new one",
		    s->url, s->errbuf[0] ? s->errbuf : curl_easy_strerror(rc));
		cut(&r->rejected, nrej);
		cut(&r->deferred, ndef);
		r->reconnected = true;
		rc = transfer(s, msg, n, &seven, r, true, &connects);
		r->connects += (int)connects;
	}
	curl_easy_setopt(s->h, CURLOPT_MAIL_RCPT, NULL);
	finish(r, rc, &s->x, s->errbuf);
	log_debug("smtp: %s: %s (curl %d, reply %d, %d new connections)",
	    s->url, smtp_status_str(r->status), (int)rc, s->x.last_code,
	    r->connects);
out:
	curl_slist_free_all(list);
	free(url);
	buf_free(&seven);
	return r->status;
}
