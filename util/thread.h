/* Helper threads: what each one does first. */
#ifndef UTIL_THREAD_H
#define UTIL_THREAD_H

/*
 * The calling thread is a helper of the main one: every signal blocked
 * (they are the main thread's to take, so that its system calls are the
 * ones they interrupt) and its name set to name (up to 15 bytes; what
 * top -H, perf and gdb show).
 */
void thread_helper(const char *name);

#endif
