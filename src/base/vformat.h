/* vformat.h — the core's printf subset (src/base/status.c; the core uses no stdio). Writes at most
 * cap - 1 characters and a NUL (when cap > 0); returns the length of the whole formatted text,
 * which exceeds cap - 1 when it was truncated (like vsnprintf). Internal. */
#ifndef PTE_BASE_VFORMAT_H
#define PTE_BASE_VFORMAT_H

#include <stdarg.h>
#include <stddef.h>

size_t pte_vformat(char *buf, size_t cap, const char *fmt, va_list ap);

#endif
