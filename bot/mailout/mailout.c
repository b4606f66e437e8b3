/*
 * Composing outgoing mail: RFC 5322 (message format, folding), RFC 2047
 * (encoded-words for non-ASCII subjects and display names), RFC 2045
 * (quoted-printable for bodies with over-long lines), RFC 3834
 * (Auto-Submitted).  See mailout.h for what is guaranteed.
 */
#include "bot/mailout/mailout.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "parsers/limits.h"
#include "util/ascii.h"
#include "util/base64.h"
#include "util/log.h"
#include "util/qp.h"
#include "util/timeutil.h"
#include "util/utf8.h"
#include "util/xalloc.h"

/* RFC 5322 §2.1.1: lines SHOULD be at most 78 characters. */
#define LINE_MAX 78
/* RFC 5322 §2.1.1: lines MUST be at most 998 characters. */
#define HARD_LINE_MAX 998
/* RFC 2047 §2: an encoded-word is at most 75 characters. */
#define WORD_MAX 75

static const char hexdig[] = "0123456789ABCDEF";

/* ---- text from mail ---------------------------------------------------- */

static size_t
char_len(unsigned char c)
{
	if (c < 0x80)
		return 1;
	if (c < 0xe0)
		return 2;
	return c < 0xf0 ? 3 : 4;
}

/* C0 and C1 controls and DEL (C1 as UTF-8: C2 80 .. C2 9F). */
static size_t
control_len(const unsigned char *p, size_t n)
{
	if (p[0] < 0x20 || p[0] == 0x7f)
		return 1;
	if (p[0] == 0xc2 && n > 1 && p[1] >= 0x80 && p[1] <= 0x9f)
		return 2;
	/* U+2028 LINE SEPARATOR and U+2029 PARAGRAPH SEPARATOR. */
	if (n > 2 && p[0] == 0xe2 && p[1] == 0x80 &&
	    (p[2] == 0xa8 || p[2] == 0xa9))
		return 3;
	return 0;
}

/*
 * Header text from mail, made safe: valid UTF-8, every control character
 * (CR, LF, NUL, TAB ...) a blank, blanks collapsed, ends trimmed, cut to
 * max bytes at a character boundary.  Appends to out.
 */
static void
clean_text(struct buf *out, const char *s, size_t max)
{
	struct buf u = BUF_INIT;
	const unsigned char *p;
	size_t i = 0, k, start = out->n;
	bool blank = false;

	utf8_repair(&u, s ? s : "", s ? strlen(s) : 0);
	p = (const unsigned char *)buf_cstr(&u);
	while (i < u.n) {
		k = control_len(p + i, u.n - i);
		if (k || p[i] == ' ') {
			blank = out->n > start;
			i += k ? k : 1;
			continue;
		}
		k = char_len(p[i]);
		if (out->n - start + (blank ? 1 : 0) + k > max)
			break;
		if (blank)
			buf_addc(out, ' ');
		blank = false;
		buf_add(out, p + i, k);
		i += k;
	}
	buf_free(&u);
}

/* ---- addresses and ids ------------------------------------------------- */

static bool
atext(char c)
{
	return ascii_isalnum(c) || (c && strchr("!#$%&'*+-/=?^_`{|}~", c));
}

bool
mailout_addr_valid(const char *email)
{
	const char *at;
	size_t i, n;

	if (email == NULL || (n = strlen(email)) < 3 || n > 254)
		return false;
	at = strrchr(email, '@');
	if (at == NULL || at == email || at - email > 64 || at[1] == '\0')
		return false;
	for (i = 0; email + i < at; i++)
		if (!atext(email[i]) && email[i] != '.')
			return false;
	for (i = 1; at[i]; i++) {
		char c = at[i];

		if (!ascii_isalnum(c) && c != '-' && c != '.')
			return false;
		if (c == '.' &&
		    (i == 1 || at[i + 1] == '\0' || at[i - 1] == '.'))
			return false;
	}
	return true;
}

bool
mailout_id_valid(const char *id)
{
	size_t i, n;

	if (id == NULL || (n = strlen(id)) == 0 || n > LIMIT_MSGID_LEN)
		return false;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)id[i];

		if (c <= 0x20 || c >= 0x7f || c == '<' || c == '>')
			return false;
	}
	return true;
}

static bool
event_valid(const char *ev)
{
	size_t i, n;

	if (ev == NULL || (n = strlen(ev)) == 0 || n > 32)
		return false;
	for (i = 0; i < n; i++)
		if (!(ev[i] >= 'a' && ev[i] <= 'z') && ev[i] != '-')
			return false;
	return true;
}

/* ---- folded header lines ----------------------------------------------- */

/* One header field being written, folded at blanks before tokens. */
struct hline {
	struct buf *b;
	size_t col;
	bool has_token; /* the current line holds a token */
};

static void
hl_add(struct hline *h, const char *p, size_t n)
{
	buf_add(h->b, p, n);
	h->col += n;
}

static void
hl_begin(struct hline *h, struct buf *b, const char *name)
{
	h->b = b;
	h->col = 0;
	h->has_token = false;
	hl_add(h, name, strlen(name));
	hl_add(h, ":", 1);
}

/* A token after a blank; the blank becomes a fold when the line would
 * grow past LINE_MAX and already holds a token (a token longer than a
 * line stays whole: ids and addresses cannot be split). */
static void
hl_token(struct hline *h, const char *p, size_t n)
{
	if (h->col + 1 + n > LINE_MAX && h->has_token) {
		hl_add(h, "\r\n", 2);
		h->col = 0;
	}
	hl_add(h, " ", 1);
	hl_add(h, p, n);
	h->has_token = true;
}

/* Words separated by single blanks, as they are. */
static void
hl_words(struct hline *h, const char *s, size_t n)
{
	size_t i = 0, j;

	while (i < n) {
		for (j = i; j < n && s[j] != ' '; j++)
			;
		hl_token(h, s + i, j - i);
		i = j + 1;
	}
}

static void
hl_end(struct hline *h)
{
	hl_add(h, "\r\n", 2);
}

/* ---- RFC 2047 encoded-words -------------------------------------------- */

/* Characters a Q encoded-word may carry as they are in any position
 * (RFC 2047 §5 (3), the strictest rule: phrases). */
static bool
q_plain(unsigned char c)
{
	return ascii_isalnum((char)c) || c == '!' || c == '*' || c == '+' ||
	    c == '-' || c == '/';
}

static size_t
q_len(const unsigned char *p, size_t n)
{
	size_t i, len = 0;

	for (i = 0; i < n; i++)
		len += (q_plain(p[i]) || p[i] == ' ') ? 1 : 3;
	return len;
}

static void
q_encode(struct buf *w, const unsigned char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (p[i] == ' ') {
			buf_addc(w, '_');
		} else if (q_plain(p[i])) {
			buf_addc(w, (char)p[i]);
		} else {
			buf_addc(w, '=');
			buf_addc(w, hexdig[p[i] >> 4]);
			buf_addc(w, hexdig[p[i] & 15]);
		}
	}
}

/*
 * Write p[0..n) (valid UTF-8) as encoded-words of at most WORD_MAX
 * characters each, never splitting a character, each a token of the
 * header line.  Q unless it is half as long again as B: mostly Latin
 * text stays readable, CJK text does not triple in size.
 */
static void
hl_encoded(struct hline *h, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	bool q = q_len(p, n) * 2 <= (n + 2) / 3 * 4 * 3;
	/* What "=?utf-8?q?" and "?=" leave of an encoded-word. */
	size_t room = WORD_MAX - 12, i = 0, j, k, len;
	struct buf w = BUF_INIT;

	while (i < n) {
		for (j = i; j < n; j += k) {
			k = char_len(p[j]);
			len = q ? q_len(p + i, j + k - i)
			        : (j + k - i + 2) / 3 * 4;
			if (len > room && j > i)
				break;
		}
		buf_reset(&w);
		buf_adds(&w, q ? "=?utf-8?q?" : "=?utf-8?b?");
		if (q)
			q_encode(&w, p + i, j - i);
		else
			base64_encode_buf(&w, p + i, j - i);
		buf_adds(&w, "?=");
		hl_token(h, w.p, w.n);
		i = j;
	}
	buf_free(&w);
}

/* ---- subject ----------------------------------------------------------- */

/* Whether a word of an unstructured header must be encoded: non-ASCII,
 * something a decoder would take for an encoded-word, or too long to fit
 * on a folded line. */
static bool
needs_encoding(const char *p, size_t n)
{
	size_t i;

	if (n > LINE_MAX - 1)
		return true;
	for (i = 0; i < n; i++)
		if ((unsigned char)p[i] >= 0x80 ||
		    (p[i] == '=' && i + 1 < n && p[i + 1] == '?'))
			return true;
	return false;
}

/*
 * Write a cleaned unstructured text (single blanks between words) as
 * tokens: words that need no encoding as they are, each run of words
 * that do as encoded-words carrying the blanks inside the run (blanks
 * between encoded-words are not displayed, RFC 2047 §6.2).
 */
static void
hl_unstructured(struct hline *h, const char *s, size_t n)
{
	size_t i = 0, j, run = 0;
	bool in_run = false;

	while (i <= n) {
		for (j = i; j < n && s[j] != ' '; j++)
			;
		if (i < n && needs_encoding(s + i, j - i)) {
			if (!in_run)
				run = i;
			in_run = true;
		} else {
			if (in_run)
				hl_encoded(h, s + run, i - 1 - run);
			in_run = false;
			if (i < n)
				hl_token(h, s + i, j - i);
		}
		i = j + 1;
		if (j >= n)
			break;
	}
	if (in_run)
		hl_encoded(h, s + run, n - run);
}

void
mailout_reply_subject(struct buf *out, const char *subject)
{
	struct str s = str_ltrim(str_from(subject));
	size_t i, d;

	while (str_istartswith(s, "re")) {
		i = 2;
		if (i < s.n && s.p[i] == '[') {
			for (d = i + 1; d < s.n && ascii_isdigit(s.p[d]); d++)
				;
			if (d == i + 1 || d >= s.n || s.p[d] != ']')
				break;
			i = d + 1;
		}
		if (i >= s.n || s.p[i] != ':')
			break;
		s = str_ltrim(str_skip(s, i + 1));
	}
	buf_adds(out, "Re: ");
	buf_addstr(out, s);
}

static void
put_subject(struct buf *b, const struct mailout_msg *m)
{
	struct buf clean = BUF_INIT, re = BUF_INIT;
	struct hline h;

	clean_text(&clean, m->subject, MAILOUT_MAX_SUBJECT);
	if (m->in_reply_to && !m->keep_subject) {
		mailout_reply_subject(&re, buf_cstr(&clean));
		buf_free(&clean);
		clean = re;
	}
	hl_begin(&h, b, "Subject");
	hl_unstructured(&h, buf_cstr(&clean), clean.n);
	hl_end(&h);
	buf_free(&clean);
}

/* ---- addresses --------------------------------------------------------- */

static bool
phrase_plain(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!atext(s[i]) && s[i] != ' ')
			return false;
	return true;
}

/* A display name as tokens: atoms, a quoted-string, or encoded-words. */
static void
hl_phrase(struct hline *h, const char *name)
{
	struct buf clean = BUF_INIT, q = BUF_INIT;
	size_t i;
	bool ascii = true;

	clean_text(&clean, name, MAILOUT_MAX_NAME);
	for (i = 0; i < clean.n; i++)
		ascii &= (unsigned char)clean.p[i] < 0x80;
	if (clean.n == 0) {
		/* nothing */
	} else if (!ascii || strstr(clean.p, "=?")) {
		/* Many readers decode "=?...?=" even inside quotes: such a
		 * name is encoded so it shows as it is. */
		hl_encoded(h, clean.p, clean.n);
	} else if (phrase_plain(clean.p, clean.n)) {
		hl_unstructured(h, clean.p, clean.n);
	} else {
		buf_addc(&q, '"');
		for (i = 0; i < clean.n; i++) {
			if (clean.p[i] == '"' || clean.p[i] == '\\')
				buf_addc(&q, '\\');
			buf_addc(&q, clean.p[i]);
		}
		buf_addc(&q, '"');
		/* Folding at the blanks inside a quoted-string is allowed;
		 * encoded-words are not (they would not be decoded there). */
		hl_words(h, q.p, q.n);
	}
	buf_free(&clean);
	buf_free(&q);
}

static void
hl_mailbox(struct hline *h, const struct mailout_addr *a, bool last)
{
	struct buf t = BUF_INIT;
	bool named = a->name && *a->name;

	if (named)
		hl_phrase(h, a->name);
	if (named)
		buf_addc(&t, '<');
	buf_adds(&t, a->email);
	if (named)
		buf_addc(&t, '>');
	if (!last)
		buf_addc(&t, ',');
	hl_token(h, t.p, t.n);
	buf_free(&t);
}

void
mailout_field_text(struct buf *out, const char *name, const char *text)
{
	struct buf clean = BUF_INIT;
	struct hline h;

	clean_text(&clean, text, MAILOUT_MAX_SUBJECT);
	hl_begin(&h, out, name);
	hl_unstructured(&h, buf_cstr(&clean), clean.n);
	hl_end(&h);
	buf_free(&clean);
}

enum err
mailout_field_mailbox(
    struct buf *out, const char *name, const struct mailout_addr *a)
{
	struct hline h;

	if (a->email == NULL || !mailout_addr_valid(a->email))
		return ERR_INVAL;
	hl_begin(&h, out, name);
	hl_mailbox(&h, a, true);
	hl_end(&h);
	return ERR_OK;
}

/* Whether a recipient goes out (valid, not the bot, not seen before);
 * taken ones are added to seen, one per line. */
static bool
take_rcpt(const struct mailout_addr *a, const char *bot, struct buf *seen)
{
	struct str rest = buf_str(seen), line;

	if (a->email == NULL || !mailout_addr_valid(a->email)) {
		char q[96];

		log_warn("mailout: %s: not a valid address, left out",
		    log_quote(q, sizeof(q), a->email ? a->email : "",
		        a->email ? strlen(a->email) : 0));
		return false;
	}
	if (ascii_stricmp(a->email, bot) == 0)
		return false;
	while (str_nextline(&rest, &line))
		if (str_ieqs(line, a->email))
			return false;
	buf_adds(seen, a->email);
	buf_addc(seen, '\n');
	return true;
}

/*
 * Split the recipients into the To and Cc that are written, each address
 * once, and the envelope list.
 */
static size_t
pick_rcpts(const struct mailout_msg *m, const struct mailout_addr **to,
    size_t *nto, const struct mailout_addr **cc, size_t *ncc, struct buf *rcpts)
{
	size_t i;

	*nto = *ncc = 0;
	for (i = 0; i < m->nto; i++)
		if (take_rcpt(&m->to[i], m->from_email, rcpts))
			to[(*nto)++] = &m->to[i];
	for (i = 0; i < m->ncc; i++)
		if (take_rcpt(&m->cc[i], m->from_email, rcpts))
			cc[(*ncc)++] = &m->cc[i];
	return *nto + *ncc;
}

static void
put_addrs(
    struct buf *b, const char *field, const struct mailout_addr **v, size_t n)
{
	struct hline h;
	size_t i;

	if (n == 0)
		return;
	hl_begin(&h, b, field);
	for (i = 0; i < n; i++)
		hl_mailbox(&h, v[i], i + 1 == n);
	hl_end(&h);
}

/* ---- threading --------------------------------------------------------- */

static void
put_id_field(struct buf *b, const char *field, const char *id)
{
	struct hline h;
	struct buf t = BUF_INIT;

	buf_addf(&t, "<%s>", id);
	hl_begin(&h, b, field);
	hl_token(&h, t.p, t.n);
	buf_free(&t);
	hl_end(&h);
}

/*
 * References: the parent's References and the parent, valid ids only,
 * each once (the later copy kept), at most MAILOUT_MAX_REFS: the root
 * and the nearest ancestors.  Of a very long list only the first id and
 * the last LIMIT_REFERENCES are looked at.
 */
static void
put_references(struct buf *b, const struct mailout_msg *m)
{
	const char *ids[LIMIT_REFERENCES + 2];
	size_t nr = m->references ? m->nreferences : 0, n = 0, i, j, from;
	struct hline h;
	struct buf t = BUF_INIT;

	from = nr > LIMIT_REFERENCES ? nr - LIMIT_REFERENCES : 1;
	for (i = 0; i <= nr; i++) {
		const char *id = i < nr ? m->references[i] : m->in_reply_to;

		if ((i > 0 && i < from) || !mailout_id_valid(id))
			continue;
		for (j = 0; j < n && strcmp(ids[j], id) != 0; j++)
			;
		if (j < n) {
			memmove(
			    &ids[j], &ids[j + 1], (n - j - 1) * sizeof(*ids));
			n--;
		}
		ids[n++] = id;
	}
	if (n == 0)
		return;
	from = n > MAILOUT_MAX_REFS ? n - (MAILOUT_MAX_REFS - 1) : 1;
	hl_begin(&h, b, "References");
	for (i = 0; i < n; i++) {
		if (i > 0 && i < from)
			continue;
		buf_reset(&t);
		buf_addf(&t, "<%s>", ids[i]);
		hl_token(&h, t.p, t.n);
	}
	buf_free(&t);
	hl_end(&h);
}

/* ---- body -------------------------------------------------------------- */

/* Valid UTF-8 with CRLF line ends (a lone CR or LF is a line end too),
 * ending with CRLF unless empty. */
static void
body_crlf(struct buf *out, const char *body, size_t n)
{
	struct buf u = BUF_INIT;
	size_t i;

	utf8_repair(&u, body ? body : "", body ? n : 0);
	for (i = 0; i < u.n; i++) {
		if (u.p[i] == '\r' || u.p[i] == '\n') {
			if (u.p[i] == '\r' && i + 1 < u.n && u.p[i + 1] == '\n')
				i++;
			buf_add(out, "\r\n", 2);
		} else {
			buf_addc(out, u.p[i]);
		}
	}
	if (out->n > 0 && out->p[out->n - 1] != '\n')
		buf_add(out, "\r\n", 2);
	buf_free(&u);
}

/* The longest line (without CRLF) and whether any byte is not ASCII. */
static size_t
body_scan(const struct buf *b, bool *ascii)
{
	size_t i, len = 0, max = 0;

	*ascii = true;
	for (i = 0; i < b->n; i++) {
		if ((unsigned char)b->p[i] >= 0x80)
			*ascii = false;
		if (b->p[i] == '\r')
			continue;
		if (b->p[i] == '\n') {
			len = 0;
			continue;
		}
		if (++len > max)
			max = len;
	}
	return max;
}

/* The MIME fields and the body after the blank line. */
static enum err
put_body(struct buf *b, const struct mailout_msg *m)
{
	struct buf crlf = BUF_INIT;
	bool ascii;
	size_t longest;
	enum err e = ERR_OK;

	body_crlf(&crlf, m->body, m->body_len);
	longest = body_scan(&crlf, &ascii);
	buf_adds(b,
	    "MIME-Version: 1.0\r\n"
	    "Content-Type: text/plain; charset=utf-8\r\n");
	/* Neither encoding shrinks the body: one over the cap is refused
	 * before it is copied. */
	if (!buf_fits(b, crlf.n)) {
		e = ERR_LIMIT;
	} else if (longest > HARD_LINE_MAX) {
		buf_adds(b,
		    "Content-Transfer-Encoding: "
		    "quoted-printable\r\n\r\n");
		qp_encode(b, crlf.p ? crlf.p : "", crlf.n);
	} else {
		buf_addf(b, "Content-Transfer-Encoding: %s\r\n\r\n",
		    ascii ? "7bit" : "8bit");
		buf_add(b, crlf.p ? crlf.p : "", crlf.n);
	}
	buf_free(&crlf);
	return e;
}

/* ---- the message ------------------------------------------------------- */

static enum err
check_msg(const struct mailout_msg *m)
{
	char q[96];

	if (!mailout_addr_valid(m->from_email)) {
		log_err("mailout: %s: not a valid sender address",
		    log_quote(q, sizeof(q), m->from_email ? m->from_email : "",
		        m->from_email ? strlen(m->from_email) : 0));
		return ERR_INVAL;
	}
	if (!mailout_id_valid(m->message_id)) {
		log_err("mailout: %s: not a valid Message-ID",
		    log_quote(q, sizeof(q), m->message_id ? m->message_id : "",
		        m->message_id ? strlen(m->message_id) : 0));
		return ERR_INVAL;
	}
	if (!event_valid(m->event)) {
		log_err("mailout: %s: not a valid event name",
		    log_quote(q, sizeof(q), m->event ? m->event : "",
		        m->event ? strlen(m->event) : 0));
		return ERR_INVAL;
	}
	return ERR_OK;
}

static enum err
put_headers(struct buf *b, const struct mailout_msg *m,
    const struct mailout_addr **to, size_t nto, const struct mailout_addr **cc,
    size_t ncc)
{
	struct mailout_addr from;
	const struct mailout_addr *fromp = &from;
	char date[64];
	enum err e;

	from.name = m->from_name ? m->from_name : "patchyard";
	from.email = m->from_email;
	if ((e = time_fmt_rfc5322(date, sizeof(date), m->date, 0)))
		return e;
	put_addrs(b, "From", &fromp, 1);
	put_addrs(b, "To", to, nto);
	put_addrs(b, "Cc", cc, ncc);
	put_subject(b, m);
	buf_addf(b, "Date: %s\r\n", date);
	put_id_field(b, "Message-ID", m->message_id);
	if (mailout_id_valid(m->in_reply_to))
		put_id_field(b, "In-Reply-To", m->in_reply_to);
	put_references(b, m);
	buf_addf(b, "Auto-Submitted: auto-replied\r\nX-Patchyard-Event: %s\r\n",
	    m->event);
	return ERR_OK;
}

enum err
mailout_compose(const struct mailout_msg *m, struct buf *msg, struct buf *rcpts)
{
	const struct mailout_addr **to, **cc;
	size_t nto, ncc, max = msg->max;
	enum err e;

	buf_reset(msg);
	buf_reset(rcpts);
	if ((e = check_msg(m)) != ERR_OK)
		return e;
	to = xcalloc(m->nto + m->ncc + 1, sizeof(*to));
	cc = xcalloc(m->ncc + 1, sizeof(*cc));
	if (pick_rcpts(m, to, &nto, cc, &ncc, rcpts) == 0) {
		log_err("mailout: %s: no recipient left", m->message_id);
		e = ERR_NOTFOUND;
		goto out;
	}
	if (nto == 0) {
		memcpy(to, cc, ncc * sizeof(*cc));
		nto = ncc;
		ncc = 0;
	}
	msg->max = max && max < MAILOUT_MAX_SIZE ? max : MAILOUT_MAX_SIZE;
	if ((e = put_headers(msg, m, to, nto, cc, ncc)) == ERR_OK)
		e = put_body(msg, m);
	if (e == ERR_OK && !buf_fits(msg, 0))
		e = ERR_LIMIT;
	msg->max = max;
	if (e)
		log_err("mailout: %s: cannot compose: %s", m->message_id,
		    err_str(e));
out:
	free(to);
	free(cc);
	return e;
}

enum err
mailout_7bit(const char *msg, size_t n, struct buf *out)
{
	static const char cte[] = "\r\nContent-Transfer-Encoding: 8bit\r\n";
	struct str all = str_make(msg, n);
	long end = str_findstr(all, "\r\n\r\n", 4), at;

	buf_reset(out);
	if (end < 0)
		return ERR_INVAL;
	/* The field as mailout_compose() writes it, in the header. */
	at = str_findstr(str_make(msg, (size_t)end + 2), cte, sizeof(cte) - 1);
	if (at < 0)
		return ERR_INVAL;
	buf_add(out, msg, (size_t)at);
	buf_adds(out, "\r\nContent-Transfer-Encoding: quoted-printable\r\n");
	buf_add(out, msg + at + sizeof(cte) - 1,
	    (size_t)end + 4 - ((size_t)at + sizeof(cte) - 1));
	qp_encode(out, msg + end + 4, n - (size_t)end - 4);
	return ERR_OK;
}

enum err
mailout_message_id(
    struct buf *out, int64_t now, const char *event, const char *bot_address)
{
	unsigned char r[8];
	const char *at = bot_address ? strrchr(bot_address, '@') : NULL;
	const char *domain = at && at[1] ? at + 1 : "localhost";
	size_t i;

	if (!event_valid(event))
		return ERR_INVAL;
	if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r)) {
		log_err("mailout: getrandom: %s", strerror(errno));
		return ERR_IO;
	}
	buf_addf(out, "%lld.", (long long)now);
	for (i = 0; i < sizeof(r); i++) {
		buf_addc(out, hexdig[r[i] >> 4]);
		buf_addc(out, hexdig[r[i] & 15]);
	}
	buf_addf(out, ".%s@%s", event, domain);
	return ERR_OK;
}
