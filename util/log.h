/*
 * Logging to stderr.  Lines read "module: object: what happened".  Text
 * that came from mail must go through log_quote() first.
 */
#ifndef UTIL_LOG_H
#define UTIL_LOG_H

#include <stddef.h>

enum log_level {
	LOG_ERR,
	LOG_WARN,
	LOG_INFO,
	LOG_DEBUG
};

void log_set_level(enum log_level level);
enum log_level log_get_level(void);
void log_msg(enum log_level level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#define log_err(...) log_msg(LOG_ERR, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_WARN, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)

/*
 * Copy untrusted text into out (size outn, NUL-terminated), escaping
 * control characters, backslashes and non-ASCII bytes as \xNN and cutting
 * it at outn - 4 bytes with "...".  Returns out.
 */
const char *log_quote(char *out, size_t outn, const char *s, size_t n);

#endif
