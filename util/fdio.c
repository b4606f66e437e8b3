#include "util/fdio.h"

#include <errno.h>
#include <fcntl.h>
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

int
fd_std_open(void)
{
	int fd;

	/* open() takes the lowest free number: 0-2 fill first. */
	while ((fd = open("/dev/null", O_RDWR)) >= 0 && fd <= 2)
		;
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}
