/*
 * Fuzz target of the template compiler and renderer: the input is a
 * template (an operator's override file is untrusted enough); it is
 * compiled, checked against a schema, and rendered with a data model
 * holding nested lists and values that look like tags.  Also fed to the
 * mail template parser.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bot/mailout/template.h"

static struct template_data *
model(void)
{
	struct template_data *d = template_data_new(), *a, *b;
	int i, j;

	template_data_set(d, "a", "{{a}}");
	template_data_set(d, "reason", "nacked");
	template_data_set(d, "empty", "");
	for (i = 0; i < 3; i++) {
		a = template_data_add(d, "l");
		template_data_setf(a, "x", "x%d}}", i);
		for (j = 0; j < i; j++) {
			b = template_data_add(a, "m");
			template_data_setf(b, "y", "{{#l}}%d", j);
		}
	}
	return d;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = { "a", "reason", "empty", "l", "l.x",
		"l.m", "l.m.y", NULL };
	struct template *t = NULL;
	struct template_mail *m = NULL;
	struct template_data *d;
	struct buf out, why = BUF_INIT, s = BUF_INIT, b = BUF_INIT;

	if (template_parse("fuzz", (const char *)data, size, 1, &t, &why) ==
	    ERR_OK) {
		d = model();
		buf_init(&out, 1 << 20);
		template_check(t, names, &why);
		template_render(t, d, &out);
		template_data_free(d);
		buf_free(&out);
	}
	template_free(t);
	if (template_mail_parse("command-reply", "fuzz", (const char *)data,
	        size, &m, &why) == ERR_OK) {
		d = model();
		template_mail_render(m, d, &s, &b);
		/* A subject is one line, whatever the values. */
		if (s.n && (memchr(s.p, '\n', s.n) || memchr(s.p, '\r', s.n)))
			abort();
		template_data_free(d);
	}
	template_mail_free(m);
	buf_free(&why);
	buf_free(&s);
	buf_free(&b);
	return 0;
}
