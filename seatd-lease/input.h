#ifndef SEATD_LEASE_INPUT_H
#define SEATD_LEASE_INPUT_H

#include <stdbool.h>
#include <stddef.h>

#include "poller.h"
#include "seatmap.h"

/*
 * A seat's input devices, given to it as systemd-logind's `loginctl attach`
 * does, so that Xorg's own udev backend does the rest: a runtime rules file
 * of ours gives every event device that the seat's inputs match
 * ID_SEAT=seat-NAME (which 73-seat-late.rules turns into the tag `Xorg -seat`
 * looks for), the seat's user as owner, mode 0600 and no uaccess tag; then
 * udev re-evaluates those devices. Hot-plugged devices get the same rules.
 */

/* Where the rules go: numbered below 73-seat-late.rules, which reads ID_SEAT. */
#define INPUT_RULES_DIR "/run/udev/rules.d"
#define INPUT_RULES_PREFIX "72-seatd-lease-"

/* The rules text for seat (pure); NULL and err if a match cannot be a rule. */
char *input_rules_text(const struct seat_config *seat, const char *user, char *err,
		size_t errlen);

/* What a seat got. */
struct input_counts {
	int devices, keyboards, pointers;
};

/* Told once udev has applied a seat's rules to its devices (or when it
 * did not answer in time, which is logged). */
typedef void (*input_assigned_fn)(void *data, const struct input_counts *counts);

struct input_assignment;

/*
 * Writes the seat's rules and has udev apply them to the devices there are;
 * fn is called from the loop when udev has answered for every device, or
 * after timeout_ms. NULL with err if the rules could not be written
 * (nothing is left half-written).
 */
struct input_assignment *input_assign_start(struct poller *poller,
		const struct seat_config *seat, const char *user, int timeout_ms,
		input_assigned_fn fn, void *data, char *err, size_t errlen);
/* Stops waiting (the rules stay: input_release removes them). */
void input_assignment_cancel(struct input_assignment *assignment);

/* Asks the kernel to send a change uevent for the device at syspath, as
 * `udevadm trigger` does; 0, or -errno (-ENOENT: the device is gone). */
int input_send_change(const char *syspath);

/* Logs an error for every device that more than one seat of map matches
 * (naming the device and the seats); returns how many there are. */
int input_check_overlaps(const struct seatmap *map);

/* Removes the seat's rules and gives its devices back to seat0. */
void input_release(const char *seat, int timeout_ms);

/* Removes the rules of every seat (seat NULL) or of one, left by an earlier
 * run, and gives those devices back. Returns how many files it removed. */
int input_clean_stale(const char *seat, int timeout_ms);

/* The event nodes udev has on seat-NAME now, NULL-terminated (strv_free);
 * empty if udev cannot be asked. */
char **input_seat_nodes(const char *seat);

/* One event device as `check --probe` shows it. */
struct input_probe_device {
	char *node, *name, *id_path;
	/* Indexes of the seats whose inputs match it, -1 terminated. */
	int seats[8];
};

/* Every event device there is, and which seats of map match it; NULL if
 * udev cannot be asked. Free with input_probe_free. */
struct input_probe_device *input_probe(const struct seatmap *map, size_t *n);
void input_probe_free(struct input_probe_device *devices, size_t n);

struct input_watch;

/* Told of every event device that udev adds to, or removes from, a seat of
 * ours (ID_SEAT=seat-NAME): seat is NAME. */
typedef void (*input_watch_fn)(const char *seat, bool added, const char *node,
		const char *name, void *data);

/* NULL if udev cannot be watched (the seats work without it). */
struct input_watch *input_watch_create(struct poller *poller, input_watch_fn fn, void *data);
void input_watch_destroy(struct input_watch *watch);

#endif
