#ifndef SEATD_LEASE_ASSIGN_FONT_H
#define SEATD_LEASE_ASSIGN_FONT_H

#include <stdint.h>

/* The assignment screen's letters: 5 columns by 7 rows. */
#define ASSIGN_FONT_W 5
#define ASSIGN_FONT_H 7

/* The 7 rows of c's glyph (bit 4 is the leftmost column); lower case is
 * drawn as upper case, a character without a glyph as '?'. Never NULL. */
const uint8_t *assign_font_glyph(char c);

#endif
