/* The calls into libetpan's MIME parser (parsers/mime_etpan.h). */
#include "parsers/mime_etpan.h"

#include <pthread.h>
#include <strings.h>

#include <libetpan/charconv.h>
#include <libetpan/mailmime.h>

/*
 * libetpan 1.9.4 decodes every Content-Type field as encoded words from
 * us-ascii to utf-8 before it parses it, through iconv: an iconv_open()
 * and an iconv_close() for each MIME part of each mail, 4% of the parse
 * of util-linux's archive.  Its hook for another converter
 * takes that pair here and does what its iconv loop does: an ASCII byte
 * is kept, any other becomes '?'.  Every other pair goes on to iconv.
 */
static int
ascii_to_utf8(const char *tocode, const char *fromcode, const char *str,
    size_t length, char *result, size_t *result_len)
{
	size_t i;

	if (strcasecmp(tocode, "utf-8") != 0 ||
	    strcasecmp(fromcode, "us-ascii") != 0 || *result_len < length)
		return MAIL_CHARCONV_ERROR_UNKNOWN_CHARSET;
	for (i = 0; i < length; i++)
		result[i] = (unsigned char)str[i] < 0x80 ? str[i] : '?';
	*result_len = length;
	return MAIL_CHARCONV_NO_ERROR;
}

static pthread_once_t hook_once = PTHREAD_ONCE_INIT;

static void
hook(void)
{
	extended_charconv = ascii_to_utf8;
}

int
mime_etpan_parse(const char *buf, size_t n, size_t *idx, struct mailmime **out)
{
	pthread_once(&hook_once, hook);
	return mailmime_parse(buf, n, idx, out);
}

char *
mime_etpan_boundary(struct mailmime_content *ct)
{
	return mailmime_extract_boundary(ct);
}

void
mime_etpan_free(struct mailmime *mm)
{
	mailmime_free(mm);
}
