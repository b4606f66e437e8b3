#include "util/fdio.h"

#include <errno.h>
#include <unistd.h>

int
fd_write_all(int fd, const void *p, size_t n)
{
	const char *q = p;

	while (n > 0) {
		ssize_t w = write(fd, q, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (w == 0)
				errno = EIO;
			return -1;
		}
		q += w;
		n -= (size_t)w;
	}
	return 0;
}
