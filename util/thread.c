#include "util/thread.h"

#include <pthread.h>
#include <signal.h>

void
thread_helper(const char *name)
{
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	pthread_setname_np(pthread_self(), name);
}
