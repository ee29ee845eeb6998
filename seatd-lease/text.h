#ifndef SEATD_LEASE_TEXT_H
#define SEATD_LEASE_TEXT_H

#include <stddef.h>

/* Appends to the string in buf (of size len), cutting what does not fit:
 * for messages assembled piece by piece. */
__attribute__((format(printf, 3, 4)))
void text_append(char *buf, size_t len, const char *fmt, ...);

#endif
