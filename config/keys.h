#ifndef SEATD_LEASE_KEYS_H
#define SEATD_LEASE_KEYS_H

/*
 * Every key the seat map accepts, and where. The man page documents exactly
 * these (tests/unit/test-keys.c holds the two together).
 */

enum key_scope {
	IN_GENERAL = 1 << 0,
	IN_SEAT_DEFAULTS = 1 << 1, /* [seat:*] */
	IN_SEAT = 1 << 2,          /* [seat:NAME] */
};

struct key_info {
	const char *name;
	unsigned scope;
};

/* Terminated by an entry with a NULL name. */
extern const struct key_info seatmap_keys[];

const struct key_info *seatmap_key_lookup(const char *name);

#endif
