#include "util/log.h"

#include <stdarg.h>
#include <stdio.h>

static enum log_level cur_level = LOG_WARN;

void
log_set_level(enum log_level level)
{
	cur_level = level;
}

enum log_level
log_get_level(void)
{
	return cur_level;
}

void
log_msg(enum log_level level, const char *fmt, ...)
{
	static const char *const names[] = { "error", "warning", "info",
		"debug" };
	va_list ap;

	if (level > cur_level)
		return;
	fprintf(stderr, "patchyard: %s: ", names[level]);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

const char *
log_quote(char *out, size_t outn, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t i, o = 0;

	if (outn == 0)
		return out;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		size_t need = (c < 0x20 || c >= 0x7f || c == '\\') ? 4 : 1;

		if (o + need + 4 > outn) {
			if (o + 4 <= outn) {
				out[o++] = '.';
				out[o++] = '.';
				out[o++] = '.';
			}
			break;
		}
		if (need == 4) {
			out[o++] = '\\';
			out[o++] = 'x';
			out[o++] = hex[c >> 4];
			out[o++] = hex[c & 15];
		} else {
			out[o++] = (char)c;
		}
	}
	out[o] = '\0';
	return out;
}
