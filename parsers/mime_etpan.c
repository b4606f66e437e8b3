/* The calls into libetpan's MIME parser (parsers/mime_etpan.h). */
#include "parsers/mime_etpan.h"

#include <libetpan/mailmime.h>

int
mime_etpan_parse(const char *buf, size_t n, size_t *idx, struct mailmime **out)
{
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
