/* Links, dates and query filters shared by the pages and the API. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/web/webpriv.h"
#include "parsers/model.h"
#include "parsers/msgid.h"
#include "util/ascii.h"
#include "util/log.h"
#include "util/timeutil.h"

const char *
web_link(struct arena *a, const struct web_req *rq, const char *path, bool dir)
{
	size_t r = strlen(rq->root), p = strlen(path);
	bool slash = dir && rq->static_site && p > 0;
	char *s = arena_alloc(a, r + p + 2);

	memcpy(s, rq->root, r);
	memcpy(s + r, path, p);
	if (slash)
		s[r + p++] = '/';
	s[r + p] = '\0';
	return s;
}

const char *
web_abs(
    struct web *w, struct arena *a, const struct web_req *rq, const char *path)
{
	const char *base = w->conf->bot_url;
	size_t n;
	char *s;

	if (base == NULL || rq->static_site)
		return web_link(a, rq, path, false);
	n = strlen(base);
	while (n && base[n - 1] == '/')
		n--;
	s = arena_alloc(a, n + strlen(path) + 2);
	memcpy(s, base, n);
	s[n] = '/';
	strcpy(s + n + 1, path);
	return s;
}

const char *
web_arg(const struct web_req *rq, const char *name)
{
	size_t i;

	for (i = 0; i < rq->nargs; i++)
		if (strcmp(rq->args[i].name, name) == 0)
			return rq->args[i].value;
	return rq->nargs == 0 && rq->arg ? rq->arg(rq->cls, name) : NULL;
}

const char *
web_archive(struct arena *a, const struct config *conf, const char *project,
    const char *msgid)
{
	const struct conf_project *pr = config_project(conf, project);
	struct buf b = BUF_INIT;
	const char *pct, *out = NULL;

	if (pr == NULL || pr->archive == NULL || msgid == NULL ||
	    (pct = strstr(pr->archive, "%s")) == NULL)
		return NULL;
	buf_add(&b, pr->archive, (size_t)(pct - pr->archive));
	msgid_urlencode(&b, str_from(msgid));
	buf_adds(&b, pct + 2);
	if (web_http_url(buf_cstr(&b)))
		out = arena_strdup(a, buf_cstr(&b));
	buf_free(&b);
	return out;
}

void
web_when(struct template_data *d, const char *name, int64_t t,
    const struct web_req *rq)
{
	char iso[32], words[48], key[64];

	if (t <= 0 || time_fmt_iso(iso, sizeof(iso), t) != ERR_OK)
		return;
	/* A static page is not rendered again as it ages: a date there. */
	if (rq->static_site ? time_fmt_date(words, sizeof(words), t)
	                    : time_fmt_ago(words, sizeof(words), t, rq->now))
		return;
	template_data_set(d, name, words);
	if (snprintf(key, sizeof(key), "%s_iso", name) < (int)sizeof(key))
		template_data_set(d, key, iso);
}

void
web_when_abs(struct template_data *d, const char *name, int64_t t,
    const struct web_req *rq)
{
	char iso[32], words[48], key[64];

	if (t <= 0 || time_fmt_iso(iso, sizeof(iso), t) != ERR_OK ||
	    strlen(iso) < 16)
		return;
	/* "2025-03-04T10:00:00Z" as "2025-03-04 10:00". */
	template_data_setf(d, name, "%.10s %.5s", iso, iso + 11);
	if (snprintf(key, sizeof(key), "%s_iso", name) < (int)sizeof(key))
		template_data_set(d, key, iso);
	if (!rq->static_site &&
	    time_fmt_ago(words, sizeof(words), t, rq->now) == ERR_OK &&
	    snprintf(key, sizeof(key), "%s_ago", name) < (int)sizeof(key))
		template_data_set(d, key, words);
}

const char *
web_clip(struct arena *a, const char *s, size_t max)
{
	size_t i, chars = 0;
	char *out;

	if (s == NULL)
		return NULL;
	for (i = 0; s[i]; i++) {
		/* A character starts at every byte but a continuation
		 * byte (10xxxxxx). */
		if (((unsigned char)s[i] & 0xc0) != 0x80 && chars++ == max)
			break;
	}
	if (s[i] == '\0')
		return s;
	out = arena_alloc(a, i + 4);
	memcpy(out, s, i);
	memcpy(out + i, "\xe2\x80\xa6", 4); /* U+2026 and the NUL */
	return out;
}

bool
web_id(const char *p, size_t n, int64_t *id)
{
	size_t i;
	int64_t v = 0;

	if (n == 0 || n > 18 || p[0] == '0')
		return false;
	for (i = 0; i < n; i++) {
		if (!ascii_isdigit(p[i]))
			return false;
		v = v * 10 + (p[i] - '0');
	}
	*id = v;
	return true;
}

static bool
count_arg(const char *s, size_t max, size_t *out)
{
	int64_t v;

	if (!web_id(s, strlen(s), &v) || (uint64_t)v > max)
		return false;
	*out = (size_t)v;
	return true;
}

bool
web_filter(struct arena *a, const struct web_req *rq, struct store_filter *f,
    size_t *page, size_t per_page_default, const char **why)
{
	const char *v;
	size_t per_page = per_page_default;
	enum model_state st;

	(void)a;
	memset(f, 0, sizeof(*f));
	*page = 1;
	if ((v = rq->arg(rq->cls, "state")) && *v) {
		if (!model_state_parse(v, &st))
			return *why = "state: not a state", false;
		f->state = model_state_name(st);
	}
	if ((v = rq->arg(rq->cls, "project")) && *v)
		f->project = v;
	if ((v = rq->arg(rq->cls, "submitter")) && *v)
		f->submitter = v;
	if ((v = rq->arg(rq->cls, "q")) && *v)
		f->q = v;
	if ((v = rq->arg(rq->cls, "since")) && *v &&
	    time_parse_iso(v, &f->since) != ERR_OK)
		return *why = "since: not an ISO 8601 date", false;
	if ((v = rq->arg(rq->cls, "page")) && *v &&
	    !count_arg(v, 1000000000, page))
		return *why = "page: not a page number", false;
	if ((v = rq->arg(rq->cls, "per_page")) && *v &&
	    !count_arg(v, WEB_MAX_PER_PAGE, &per_page))
		return *why = "per_page: 1 to 500", false;
	f->limit = per_page;
	f->offset = (*page - 1) * per_page;
	return true;
}

bool
web_accepts_gzip(const char *ae)
{
	const char *p = ae;

	while (p && *p) {
		size_t n;
		const char *q;

		while (*p == ' ' || *p == '\t' || *p == ',')
			p++;
		n = strcspn(p, ",;");
		while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
			n--;
		if ((n == 4 && ascii_strnicmp(p, "gzip", 4) == 0) ||
		    (n == 1 && *p == '*')) {
			/* "gzip;q=0" refuses it, any other weight takes
			 * it. */
			q = p + strcspn(p, ",");
			p += strcspn(p, ",;");
			if (*p != ';')
				return true;
			p++;
			while (*p == ' ')
				p++;
			if (!(p[0] == 'q' && p[1] == '=' &&
			        strspn(p + 2, "0.") == strcspn(p + 2, ", ;")))
				return true;
			p = q;
			continue;
		}
		p += strcspn(p, ",");
	}
	return false;
}

enum err
web_http_date(char *out, size_t n, int64_t t)
{
	char d[40];
	size_t k;

	/* RFC 5322's form in UTC, with GMT for +0000. */
	if (time_fmt_rfc5322(d, sizeof(d), t, 0) != ERR_OK ||
	    (k = strlen(d)) < 6 || strcmp(d + k - 5, "+0000") != 0)
		return ERR_INTERNAL;
	d[k - 5] = '\0';
	if ((size_t)snprintf(out, n, "%sGMT", d) >= n)
		return ERR_LIMIT;
	return ERR_OK;
}

bool
web_http_url(const char *url)
{
	const unsigned char *p;

	if (strncmp(url, "https://", 8) != 0 && strncmp(url, "http://", 7) != 0)
		return false;
	for (p = (const unsigned char *)url; *p; p++)
		if (*p <= 0x20 || *p == 0x7f)
			return false;
	return true;
}

int
web_framing(const struct web_hdr *h, size_t n, const char **why)
{
	const char *cl = NULL, *te = NULL;
	size_t i, nte = 0;

	for (i = 0; i < n; i++) {
		if (ascii_stricmp(h[i].name, "Content-Length") == 0) {
			/* The same value twice is one reading (RFC 9112
			 * 6.3 lets a server take it). */
			if (cl && strcmp(cl, h[i].value) != 0)
				return *why = "two Content-Length values", 400;
			cl = h[i].value;
		} else if (ascii_stricmp(h[i].name, "Transfer-Encoding") == 0) {
			te = h[i].value;
			nte++;
		}
	}
	if (cl && te)
		return *why = "both Content-Length and Transfer-Encoding", 400;
	if (nte > 1)
		return *why = "more than one Transfer-Encoding header", 400;
	if (te && ascii_stricmp(te, "chunked") != 0)
		return *why = "a transfer coding other than chunked", 501;
	return 0;
}

bool
web_uri_nul(const char *uri, size_t n)
{
	size_t i;

	if (memchr(uri, '\0', n))
		return true;
	for (i = 0; i + 2 < n; i++)
		if (uri[i] == '%' && uri[i + 1] == '0' && uri[i + 2] == '0')
			return true;
	return false;
}

const char *
web_mhd_text(char *out, size_t n, const char *msg)
{
	size_t len = strlen(msg);

	while (len && (msg[len - 1] == '\n' || msg[len - 1] == '\r'))
		len--;
	return log_quote(out, n, msg, len);
}
