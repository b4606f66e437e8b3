/* Unit tests of parsers/imapurl.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "parsers/imapurl.h"

static void
parse_ok(const char *s, bool tls, const char *user, const char *host,
    const char *port, const char *mailbox)
{
	struct imapurl u;
	const char *why = NULL;

	assert_int_equal(imapurl_parse(s, &u, &why), ERR_OK);
	assert_null(why);
	assert_int_equal(u.tls, tls);
	assert_string_equal(u.user, user);
	assert_string_equal(u.host, host);
	assert_string_equal(u.port, port);
	assert_string_equal(u.mailbox, mailbox);
}

static void
test_good(void **state)
{
	(void)state;
	parse_ok("imaps://bot@imap.example.org/INBOX", true, "bot",
	    "imap.example.org", "993", "INBOX");
	parse_ok("imap://bot@imap.example.org", false, "bot",
	    "imap.example.org", "143", "INBOX");
	parse_ok("imaps://bot@127.0.0.1:10993/lists", true, "bot", "127.0.0.1",
	    "10993", "lists");
	parse_ok("imaps://bot%40example.org@[::1]:993/a%2Fb", true,
	    "bot@example.org", "::1", "993", "a/b");
	parse_ok("imaps://bot;AUTH=*@h/", true, "bot", "h", "993", "INBOX");
	parse_ok("imaps://h/Lists.linux-man", true, "", "h", "993",
	    "Lists.linux-man");
}

static void
parse_bad(const char *s)
{
	struct imapurl u;
	const char *why = NULL;

	if (imapurl_parse(s, &u, &why) != ERR_PARSE)
		fail_msg("%s parses", s);
	assert_non_null(why);
}

static void
test_bad(void **state)
{
	(void)state;
	parse_bad("https://h/INBOX");
	parse_bad("imaps://");
	parse_bad("imaps://bot@/INBOX");
	parse_bad("imaps://h:99999/INBOX");
	parse_bad("imaps://h:/INBOX");
	parse_bad("imaps://h:12a/INBOX");
	parse_bad("imaps://[::1/INBOX");
	parse_bad("imaps://[::1]x/INBOX");
	parse_bad("imaps://h o/INBOX");
	parse_bad("imaps://bot%4@h/INBOX");
	parse_bad("imaps://bot%00@h/INBOX");
	parse_bad("imaps://h/IN%0aBOX");
	parse_bad("imaps://h/INBOX?x");
	parse_bad("imaps://h/a*b");
	parse_bad("imaps://h/a%22b");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_bad),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
