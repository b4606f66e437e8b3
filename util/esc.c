#include "util/esc.h"

#include <stdbool.h>

#include "util/utf8.h"

static const char replacement[] = "\xef\xbf\xbd"; /* U+FFFD */

static void
html(struct buf *out, const char *s, size_t n, bool attr)
{
	size_t i = 0, run;

	while (i < n) {
		unsigned char c = (unsigned char)s[i];
		const char *rep = NULL;

		switch (c) {
		case '&':
			rep = "&amp;";
			break;
		case '<':
			rep = "&lt;";
			break;
		case '>':
			rep = "&gt;";
			break;
		case '"':
			rep = attr ? "&quot;" : NULL;
			break;
		case '\'':
			rep = attr ? "&#39;" : NULL;
			break;
		default:
			if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') ||
			    c == 0x7f)
				rep = replacement;
			break;
		}
		if (rep) {
			buf_adds(out, rep);
			i++;
			continue;
		}
		/* A run of bytes that need no entity, repaired as UTF-8. */
		for (run = i; run < n; run++) {
			c = (unsigned char)s[run];
			if (c == '&' || c == '<' || c == '>' || c == 0x7f ||
			    (c < 0x20 && c != '\t' && c != '\n' && c != '\r') ||
			    (attr && (c == '"' || c == '\'')))
				break;
		}
		utf8_repair(out, s + i, run - i);
		i = run;
	}
}

void
esc_html_text(struct buf *out, const char *s, size_t n)
{
	html(out, s, n, false);
}

void
esc_html_attr(struct buf *out, const char *s, size_t n)
{
	html(out, s, n, true);
}

void
esc_url(struct buf *out, const char *s, size_t n)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		    (c >= '0' && c <= '9') || c == '-' || c == '.' ||
		    c == '_' || c == '~') {
			buf_addc(out, (char)c);
		} else {
			char pct[3] = { '%', hex[c >> 4], hex[c & 15] };

			buf_add(out, pct, 3);
		}
	}
}
