#include "bot/daemon/follow.h"

bool
follow_imap_due(struct follower *f, double now)
{
	return now >= f->next_poll;
}

enum err
follow_imap_poll(struct daemon *d, struct follower *f, double now, size_t *got)
{
	(void)now;
	*got = 0;
	follow_report(d, f, "IMAP is not supported yet");
	return ERR_CONFIG;
}

double
follow_imap_next(const struct follower *f)
{
	return f->next_poll;
}

int
follow_imap_fd(const struct follower *f)
{
	(void)f;
	return -1;
}

void
follow_imap_close(struct follower *f)
{
	(void)f;
}
