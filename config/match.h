#ifndef SEATD_LEASE_MATCH_H
#define SEATD_LEASE_MATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * An input match expression from a seat's `inputs =` line, and the test of
 * one input device against it. Pure logic: the caller fills input_device
 * from udev.
 */

enum match_kind {
	MATCH_PATH,  /* path:GLOB   udev ID_PATH (the default with no prefix) */
	MATCH_SYSFS, /* sysfs:PREFIX  the device or any ancestor has this syspath */
	MATCH_NAME,  /* name:GLOB   the device's name */
	MATCH_USB,   /* usb:VVVV:PPPP  USB vendor and product id */
	MATCH_NODE,  /* node:PATH   a device node, or a link to one */
};

struct input_match {
	enum match_kind kind;
	char *pattern; /* the text after the prefix, unquoted */
	uint16_t vendor, product;
	int line;
};

struct input_usb_id {
	uint16_t vendor, product;
};

/* What a device offers to be matched on; any field may be NULL or 0. What
 * each match sees is what the udev rule made of it sees (input.c), so that
 * check, the daemon's counts and udev agree. */
struct input_device {
	const char *id_path;
	const char *syspath;  /* of the input device, /sys/devices/... */
	const char *name;     /* its input device's (inputN) name attribute */
	/* Of every USB device it is attached through, nearest first: itself,
	 * its hubs, the root hub (udev's ATTRS{} look at every parent). */
	const struct input_usb_id *usb_ids;
	size_t n_usb_ids;
	const char *devnode;  /* /dev/input/eventN */
	/* Nodes that link to devnode (by-id, by-path): node: also accepts these. */
	const char *const *devlinks;
};

/*
 * Parses one word of an `inputs =` value. On error returns false and writes
 * a message (what is wrong and what to write instead) to err.
 */
bool input_match_parse(const char *word, struct input_match *out, char *err, size_t errlen);

/*
 * Whether match can become a udev rule that means what input_match_test()
 * means: the one rule for check (input_match_parse calls it) and for the
 * daemon's rules file (seatd-lease/input/input-rules.c). If not, false and why in err.
 */
bool input_match_check(const struct input_match *match, char *err, size_t errlen);

bool input_match_test(const struct input_match *match, const struct input_device *dev);

/*
 * The sysfs directory below which (itself included) every device the match
 * can match is, where it names one: for sysfs:, its prefix; for a path:
 * whose pattern begins with a PCI address written out ("pci-0000:00:14.0-"
 * or the whole pattern), /sys/bus/pci/devices/ADDRESS, to resolve (udev's
 * ID_PATH begins with the nearest PCI device a device is below). True and
 * the directory in root; false for any other match, or if root is short.
 */
bool input_match_root(const struct input_match *match, char *root, size_t len);

/* "path:pci-0000:00:14.0-usb-0:1.*" again, quoted where needed; caller frees. */
char *input_match_format(const struct input_match *match);

bool input_match_equal(const struct input_match *a, const struct input_match *b);

/* A deep copy (its own pattern); aborts when out of memory. */
struct input_match input_match_copy(const struct input_match *match);

void input_match_finish(struct input_match *match);

const char *match_kind_prefix(enum match_kind kind);

/* The one report of an input device that the inputs of several seats match
 * (the daemon's log, check --probe): "input device NAME (NODE) is matched by
 * seats A and B; a device belongs to one seat: ...", into buf (cut short if
 * len is too small). name may be NULL. Cannot fail. */
void input_overlap_format(char *buf, size_t len, const char *name, const char *node,
		const char *const *seats, size_t n_seats);

#endif
