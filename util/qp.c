#include "util/qp.h"

#include "util/ascii.h"

static const char hexdig[] = "0123456789ABCDEF";

size_t
qp_decode(char *dst, const char *src, size_t n, bool q_header, bool *bad)
{
	size_t i, o = 0;

	for (i = 0; i < n; i++) {
		char c = src[i];
		size_t j;

		if (c == '_' && q_header) {
			dst[o++] = ' ';
			continue;
		}
		if (c != '=') {
			dst[o++] = c;
			continue;
		}
		if (i + 2 < n && ascii_hexval(src[i + 1]) >= 0 &&
		    ascii_hexval(src[i + 2]) >= 0) {
			dst[o++] = (char)(ascii_hexval(src[i + 1]) * 16 +
			    ascii_hexval(src[i + 2]));
			i += 2;
			continue;
		}
		if (!q_header) {
			/* A soft line break, maybe with blanks after the
			 * '=' that some gateway added. */
			for (j = i + 1;
			     j < n && (src[j] == ' ' || src[j] == '\t'); j++)
				;
			if (j == n || src[j] == '\n') {
				i = j;
				continue;
			}
			if (src[j] == '\r' && j + 1 < n && src[j + 1] == '\n') {
				i = j + 1;
				continue;
			}
		}
		if (bad)
			*bad = true;
		dst[o++] = '=';
	}
	return o;
}

/* One line (without its line end) and a hard CRLF. */
static void
encode_line(struct buf *out, struct str line)
{
	char enc[3];
	size_t i, col = 0, k;

	for (i = 0; i < line.n; i++) {
		unsigned char c = (unsigned char)line.p[i];
		bool last = i + 1 == line.n;

		k = 1;
		enc[0] = (char)c;
		if (c == '=' || c >= 0x7f || (c < 0x20 && c != '\t') ||
		    ((c == ' ' || c == '\t') && last)) {
			enc[0] = '=';
			enc[1] = hexdig[c >> 4];
			enc[2] = hexdig[c & 15];
			k = 3;
		}
		/* Room for the soft break's '=' unless this ends the line. */
		if (col + k > QP_LINE_MAX - (last ? 0 : 1)) {
			buf_add(out, "=\r\n", 3);
			col = 0;
		}
		buf_add(out, enc, k);
		col += k;
	}
	buf_add(out, "\r\n", 2);
}

void
qp_encode(struct buf *out, const char *src, size_t n)
{
	struct str rest = str_make(src, n), line;

	while (str_nextline(&rest, &line))
		encode_line(out, line);
}
