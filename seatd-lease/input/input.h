#ifndef SEATD_LEASE_INPUT_H
#define SEATD_LEASE_INPUT_H

#include <stdbool.h>
#include <stddef.h>

#include "poller.h"
#include "seat0-keyboard.h"
#include "seatmap.h"

/*
 * A seat's input devices, given to it as systemd-logind's `loginctl attach`
 * does, so that Xorg's own udev backend does the rest: a runtime rules file
 * of ours gives every event device that the seat's inputs match
 * ID_SEAT=seat-NAME (which 73-seat-late.rules turns into the tag `Xorg -seat`
 * looks for), the seat's user as owner, mode 0600 and no uaccess tag; then
 * udev re-evaluates those devices. Hot-plugged devices get the same rules.
 *
 * input-rules.c writes and removes the rules, input-op.c runs the
 * operations below, input-reload.c the udevadm they need, input-udev.c
 * answers what udev knows now, and input-watch.c watches it.
 */

/* Where the rules go: numbered below 73-seat-late.rules, which reads ID_SEAT. */
#define INPUT_RULES_DIR "/run/udev/rules.d"
#define INPUT_RULES_PREFIX "72-seatd-lease-"

/* The rules text for seat (pure); NULL and err if a match cannot be a rule. */
char *input_rules_text(const struct seat_config *seat, const char *user, char *err,
		size_t errlen);

/* The rules text for seat's devices = (pure): SUBSYSTEM!="input" devices
 * get ID_SEAT=seat-NAME and the seat and uaccess tags, so that logind gives
 * the seat's active session's user an ACL on their nodes. "" when the seat
 * has none; NULL and err if a match cannot be a rule. */
char *input_devices_rules_text(const struct seat_config *seat, char *err, size_t errlen);

/* What a seat got. */
struct input_counts {
	int devices, keyboards, pointers;
	int others; /* device nodes that the seat's devices = match */
};

/*
 * Assigning a seat's devices, and giving them back, are operations on the
 * loop, and none of them waits in it: each changes the rules at its start
 * (file operations), then has udevd reload them (`udevadm control
 * --reload`, run as a child watched by its pidfd: input-reload.h), tells
 * every device concerned to change (input_send_change) and waits for udev's
 * answer for each on a udev monitor. fn is called from the loop, never from
 * the start function, once udev has answered for every device, or
 * timeout_ms after the devices were told (what did not answer is logged);
 * before that, udevadm gets timeout_ms too, and is killed after it. The
 * operation is gone by then. fn must not cancel it.
 */
struct input_op;

/* counts: what an assignment found its seat's inputs to match (zeros for
 * the others). */
typedef void (*input_done_fn)(void *data, const struct input_counts *counts);

/* Writes the seat's rules (with logind, those that make it a logind seat,
 * logind-seat.h), and has udev apply them to the devices there are. NULL
 * and err if the rules could not be written (nothing is left
 * half-written) or the loop cannot watch the operation. */
struct input_op *input_assign_start(struct poller *poller, const struct seat_config *seat,
		const char *user, bool logind, int timeout_ms, input_done_fn fn, void *data,
		char *err, size_t errlen);

/* Removes the seat's rules and gives the devices udev has on it back to
 * seat0 (owner root, mode 0660 with a group, at the end, however udev
 * answered). With no rules of the seat's there, nothing is done: fn is
 * called on the loop's next turn. NULL, logged, only if the loop cannot
 * watch the operation (out of descriptors): the rules are gone then, and
 * the devices are seat0's again when udev next re-reads them. */
struct input_op *input_release_start(struct poller *poller, const char *seat, int timeout_ms,
		input_done_fn fn, void *data);

/* As input_release_start, for the rules of every seat (seat NULL) or of
 * one, left by an earlier run; *removed: how many rules files it removed. */
struct input_op *input_clean_start(struct poller *poller, const char *seat, int timeout_ms,
		input_done_fn fn, void *data, int *removed);

/*
 * Stops the operation where it is: the rules stay as its start left them
 * (written, or removed); a running udevadm is killed with SIGKILL and
 * reaped (which does not wait on udev); devices not told yet are not told,
 * nor are released ones given back. fn is not called. NULL is a no-op.
 */
void input_op_cancel(struct input_op *op);

/*
 * The same two to their end on a loop of their own: they block until udev
 * has answered, twice timeout_ms at most (udevadm's, then udev's). Only
 * where no loop serves anyone yet, or any more: the
 * daemon's start (stale rules) and its teardown after its loop failed.
 * input_clean_stale returns how many files it removed.
 */
void input_release(const char *seat, int timeout_ms);
int input_clean_stale(const char *seat, int timeout_ms);
/* input_clean_stale for every seat with rules of ours but those for which
 * keep(name, data) is true (the seats a restarted daemon adopted). */
int input_clean_stale_except(bool (*keep)(const char *seat, void *data), void *data,
		int timeout_ms);

/* Asks the kernel to send a change uevent for the device at syspath, as
 * `udevadm trigger` does; 0, or -errno (-ENOENT: the device is gone). */
int input_send_change(const char *syspath);

/* One look at the event devices udev knows, for what map does with them:
 * logs an error for every device that more than one seat matches (naming
 * the device and the seats), and, unless keyboards is NULL, counts into it
 * the keyboards and those no seat takes (seat0's; seat0-keyboard.h).
 * Returns how many devices more than one seat matches; all 0 when udev
 * cannot be asked. */
int input_check_overlaps(const struct seatmap *map, struct seat0_keyboards *keyboards);

/* The keyboards alone, logging nothing (for `check`). */
struct seat0_keyboards input_count_keyboards(const struct seatmap *map);

/* The event nodes udev has on seat-NAME now, NULL-terminated (strv_free);
 * empty if udev cannot be asked. */
char **input_seat_nodes(const char *seat);

/* Every event node udev has on a seat of ours now, and every other
 * device's node, in one look (what `status` shows for all seats): nodes[i]
 * is on seat seats[i] (NAME), an event node unless other[i]. Other devices
 * are looked up in udev's index of the tag "seat", which our rules give
 * every device they put on a seat, not in all of sysfs: a walk of sysfs
 * takes most of a second under emulation, and status is asked often. Empty
 * if udev cannot be asked. Free with input_nodes_free. */
struct input_nodes {
	char **seats, **nodes;
	bool *other;
	size_t n;
};
void input_nodes_now(struct input_nodes *all);
/* The event nodes of all on seat, NULL-terminated (strv_free); never NULL. */
char **input_nodes_of(const struct input_nodes *all, const char *seat);
/* The other devices' nodes of all on seat, likewise. */
char **input_device_nodes_of(const struct input_nodes *all, const char *seat);
void input_nodes_free(struct input_nodes *all);

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

/* The nodes of the devices that seat's devices = match now, or that are
 * below one that does (a sound card's), each as "NODE (ID_PATH ...)",
 * NULL-terminated (strv_free); empty if udev cannot be asked. */
char **input_probe_other(const struct seat_config *seat);

struct input_watch;

/* Told of every event device that udev adds to, or removes from, a seat of
 * ours (ID_SEAT=seat-NAME): seat is NAME. */
typedef void (*input_watch_fn)(const char *seat, bool added, const char *node,
		const char *name, void *data);

/* NULL if udev cannot be watched (the seats work without it). */
struct input_watch *input_watch_create(struct poller *poller, input_watch_fn fn, void *data);
void input_watch_destroy(struct input_watch *watch);

#endif
