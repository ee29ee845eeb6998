#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "drm-card.h"
#include "input-rules.h"
#include "input.h"
#include "logind-seat.h"
#include "text.h"
#include "values.h"
#include "xalloc.h"

void input_rules_path(const char *seat, char *buf, size_t len) {
	snprintf(buf, len, "%s/%s%s.rules", INPUT_RULES_DIR, INPUT_RULES_PREFIX, seat);
}

/* Room for a rule's keys besides its match's pattern (and for the match's
 * own keys, the seat id and the user, which are bounded). */
#define RULE_FIXED 512

static size_t pattern_len(const struct input_match *m) {
	return m->pattern != NULL ? strlen(m->pattern) : 0;
}

/* One udev match for one of our match kinds: of an input event device
 * (inputs =), or of any other device (devices =, other: true). */
static bool rule_match(const struct input_match *m, bool other, char *buf, size_t len,
		char *err, size_t errlen) {
	if (!input_match_check(m, err, errlen)) {
		return false;
	}
	/* Each says what input_match_test() says; see match.h. */
	switch (m->kind) {
	case MATCH_PATH:
		/* A device without ID_PATH is "" to udev, which "*" matches. */
		snprintf(buf, len, "ENV{ID_PATH}==\"?*\", ENV{ID_PATH}==\"%s\"", m->pattern);
		break;
	case MATCH_NAME:
		/* The input device's name (inputN): not that of any other parent
		 * (an i2c device's, say). Another device's: its USB product's. */
		snprintf(buf, len, other ? "ATTRS{product}==\"%s\""
				: "SUBSYSTEMS==\"input\", ATTRS{name}==\"%s\"", m->pattern);
		break;
	case MATCH_USB:
		/* Both on the same parent: udev's ATTRS keys match one device. */
		snprintf(buf, len, "ATTRS{idVendor}==\"%04x\", ATTRS{idProduct}==\"%04x\"",
				m->vendor, m->product);
		break;
	case MATCH_SYSFS:
		/* DEVPATH has no /sys; the device is the prefix or below it. */
		snprintf(buf, len, "DEVPATH==\"%s|%s/*\"", m->pattern + strlen("/sys"),
				m->pattern + strlen("/sys"));
		break;
	case MATCH_NODE:
		/* DEVNAME is a property, not a key of udev's own (DEVNAME== makes
		 * udev drop the whole rule). */
		if (strncmp(m->pattern, other ? "/dev/" : "/dev/input/event",
				other ? 5 : 16) == 0 && !(other && strstr(m->pattern, "/by-"))) {
			snprintf(buf, len, "ENV{DEVNAME}==\"%s\"", m->pattern);
		} else {
			snprintf(buf, len, "SYMLINK==\"%s\"", m->pattern +
					(strncmp(m->pattern, "/dev/", 5) == 0 ? 5 : 0));
		}
		break;
	}
	return true;
}

/* rule_match() into a buffer of its own (free()), sized for the match's
 * pattern; NULL with err set on an invalid match. */
static char *rule_match_new(const struct input_match *m, bool other, char *err,
		size_t errlen) {
	size_t len = RULE_FIXED + 2 * pattern_len(m);
	char *buf = xcalloc(1, len);
	if (!rule_match(m, other, buf, len, err, errlen)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* Room for a text of a header and one rule per match: sized for the longest
 * rule each match can make (a pattern goes in at most twice), so that
 * nothing is ever cut short: a cut rule loses its closing quote, and udevd
 * drops it or reads the rest of the line into the value. */
static size_t rules_cap(const struct input_match *matches, size_t n) {
	size_t cap = 512;
	for (size_t i = 0; i < n; i++) {
		cap += RULE_FIXED + 2 * pattern_len(&matches[i]);
	}
	return cap;
}

char *input_rules_text(const struct seat_config *seat, const char *user, char *err,
		size_t errlen) {
	/* What goes into assignments, where udev substitutes % and $: the map's
	 * rules for both (seat names have neither). */
	if (!user_name_valid(user, err, errlen)) {
		return NULL;
	}
	if (!seat_name_valid(seat->name)) {
		snprintf(err, errlen, "'%s' is not a seat name", seat->name);
		return NULL;
	}
	size_t cap = rules_cap(seat->inputs, seat->n_inputs);
	char *text = xcalloc(1, cap);
	text_append(text, cap, "# seatd-lease: the input devices of seat %s. Written at the "
			"seat's start,\n# removed at its end; do not edit.\n", seat->name);
	for (size_t i = 0; i < seat->n_inputs; i++) {
		char *match = rule_match_new(&seat->inputs[i], false, err, errlen);
		if (match == NULL) {
			free(text);
			return NULL;
		}
		char id[SEAT_ID_MAX];
		/* logind acts on the power and sleep keys of every power-switch
		 * device, whatever its seat: off the seat's keyboards (after
		 * 70-power-switch.rules), unless its map says power = local. */
		text_append(text, cap, "SUBSYSTEM==\"input\", KERNEL==\"event*\", ACTION!=\"remove\", "
				"%s, ENV{ID_SEAT}=\"%s\", OWNER=\"%s\", MODE=\"0600\", "
				"TAG-=\"uaccess\", TAG+=\"seat\"%s\n", match, seat_id(seat->name, id), user,
				seat->power_local ? "" : ", TAG-=\"power-switch\"");
		free(match);
	}
	return text;
}

char *input_devices_rules_text(const struct seat_config *seat, char *err, size_t errlen) {
	if (!seat_name_valid(seat->name)) {
		snprintf(err, errlen, "'%s' is not a seat name", seat->name);
		return NULL;
	}
	size_t cap = rules_cap(seat->devices, seat->n_devices);
	char *text = xcalloc(1, cap);
	if (seat->n_devices > 0) {
		text_append(text, cap, "# The seat's other devices: logind gives its active "
				"session's user an ACL on them.\n");
	}
	for (size_t i = 0; i < seat->n_devices; i++) {
		char *match = rule_match_new(&seat->devices[i], true, err, errlen);
		if (match == NULL) {
			free(text);
			return NULL;
		}
		char id[SEAT_ID_MAX];
		/* Event devices are the inputs' (owned by the seat's user, for its
		 * X server); the rest is the seat's through logind's uaccess. */
		text_append(text, cap, "SUBSYSTEM!=\"input\", ACTION!=\"remove\", %s, "
				"ENV{ID_SEAT}=\"%s\", TAG+=\"seat\", TAG+=\"uaccess\"\n", match,
				seat_id(seat->name, id));
		free(match);
	}
	return text;
}

char *input_seat_rules_text(const struct seat_config *seat, const char *user, bool logind,
		char *err, size_t errlen) {
	char *inputs = input_rules_text(seat, user, err, errlen);
	char *devices = inputs != NULL ? input_devices_rules_text(seat, err, errlen) : NULL;
	char card[64];
	char *master = NULL;
	if (!logind) {
		master = xstrdup("");
	} else if (drm_card_sysname(seat->card, card, sizeof(card)) == 0) {
		master = logind_master_rules_text(seat, card);
	} else if (devices != NULL) {
		snprintf(err, errlen, "card %s: %s; the seat's logind seat is made of its outputs "
				"there", seat->card != NULL ? seat->card : "(none)", strerror(errno));
	}
	char *text = devices != NULL && master != NULL
		? xasprintf("%s%s%s", inputs, devices, master) : NULL;
	free(inputs);
	free(devices);
	free(master);
	return text;
}

int input_rules_write(const char *seat, const char *text, char *err, size_t errlen) {
	if (mkdir("/run/udev", 0755) != 0 && errno != EEXIST) {
		snprintf(err, errlen, "cannot create /run/udev: %s", strerror(errno));
		return -1;
	}
	if (mkdir(INPUT_RULES_DIR, 0755) != 0 && errno != EEXIST) {
		snprintf(err, errlen, "cannot create %s: %s", INPUT_RULES_DIR, strerror(errno));
		return -1;
	}
	char path[4096], tmp[4200];
	input_rules_path(seat, path, sizeof(path));
	snprintf(tmp, sizeof(tmp), "%s.new", path);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0) {
		snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
		return -1;
	}
	size_t len = strlen(text);
	bool ok = write(fd, text, len) == (ssize_t)len;
	ok = close(fd) == 0 && ok;
	if (!ok || rename(tmp, path) != 0) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

/* Whether name (a file in the rules directory) is ours, and seat's unless
 * seat is NULL. */
static bool ours(const char *name, const char *seat) {
	size_t plen = strlen(INPUT_RULES_PREFIX);
	if (strncmp(name, INPUT_RULES_PREFIX, plen) != 0) {
		return false;
	}
	name += plen;
	if (seat == NULL) {
		return strlen(name) > strlen(".rules");
	}
	size_t slen = strlen(seat);
	return strncmp(name, seat, slen) == 0 && strcmp(name + slen, ".rules") == 0;
}

char **input_rules_seats(const char *dir) {
	size_t n = 0;
	char **seats = xcalloc(1, sizeof(char *));
	DIR *d = opendir(dir);
	if (d == NULL) {
		return seats;
	}
	size_t plen = strlen(INPUT_RULES_PREFIX), slen = strlen(".rules");
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);
		if (ours(e->d_name, NULL) && strcmp(e->d_name + len - slen, ".rules") == 0) {
			seats = xrealloc(seats, (n + 2) * sizeof(char *));
			seats[n++] = xstrndup(e->d_name + plen, len - plen - slen);
			seats[n] = NULL;
		}
	}
	closedir(d);
	return seats;
}

int input_rules_remove(const char *dir, const char *seat) {
	DIR *d = opendir(dir);
	if (d == NULL) {
		return 0;
	}
	int removed = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (ours(e->d_name, seat) && unlinkat(dirfd(d), e->d_name, 0) == 0) {
			removed++;
		}
	}
	closedir(d);
	return removed;
}
