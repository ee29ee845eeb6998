#ifndef SEATD_LEASE_VALUES_H
#define SEATD_LEASE_VALUES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "seatmap.h"

/*
 * The value syntaxes of the seat map. Each parser returns false and writes
 * what is wrong, and what to write instead, to err.
 */

/* Words separated by blanks; "double" or 'single' quotes keep blanks; a
 * backslash escapes the next character outside single quotes. */
bool split_words(const char *text, char ***words, size_t *n, char *err, size_t errlen);
void strv_free(char **words);
/* A deep copy of a NULL-terminated word list (NULL for NULL); aborts when
 * out of memory. */
char **strv_copy(char *const *words);
/* words (NULL: none yet) with word, which it now owns, added at its end; the
 * list may move. Aborts when out of memory. */
char **strv_push(char **words, char *word);

/* 1500ms, 2s, 1min, 1h, or a bare number of seconds. */
bool parse_duration(const char *text, uint64_t *ms, char *err, size_t errlen);
/* A restart back-off: a duration of at least 1ms (0 would arm no timer,
 * and the seat would wait forever). */
bool parse_restart_delay(const char *text, uint64_t *ms, char *err, size_t errlen);
/* :N with N in 0..65535 (no host part: seats are local displays). */
bool parse_display(const char *text, int *display, char *err, size_t errlen);
/* BURST/INTERVAL, e.g. 5/60s. */
bool parse_start_limit(const char *text, unsigned *burst, uint64_t *interval_ms,
		char *err, size_t errlen);
bool parse_restart_policy(const char *text, enum restart_policy *policy, char *err, size_t errlen);
/* power = admin | local: *local is whether the seat's sessions keep
 * logind's power actions (seat_config.power_local). */
bool parse_power(const char *text, bool *local, char *err, size_t errlen);
/* A size in bytes: a number with a unit K, M or G (KiB, MiB, GiB; "64M"),
 * from 1M to 64G: a seat's file system in runtime_dir. */
#define SEAT_RUNTIME_SIZE_MIN (1ULL << 20)
#define SEAT_RUNTIME_SIZE_MAX (64ULL << 30)
bool parse_seat_runtime_size(const char *text, uint64_t *bytes, char *err, size_t errlen);
/* WIDTHxHEIGHT */
bool parse_mode(const char *text, unsigned *width, unsigned *height, char *err, size_t errlen);

/* 1 to 32 letters, digits, '-' or '_': it becomes part of file names and of
 * the X server's seat-NAME. */
bool seat_name_valid(const char *name);

/* A seat's udev seat id, "seat-NAME": the ID_SEAT its input devices get,
 * the X server's -seat, the name of its cgroup. SEAT_ID_MAX holds the id of
 * any valid seat name and its terminator. */
#define SEAT_ID_PREFIX "seat-"
#define SEAT_ID_MAX (sizeof(SEAT_ID_PREFIX) + 32)
/* Writes name's seat id to buf and returns buf (cut short if name is not
 * valid). Cannot fail. */
const char *seat_id(const char *name, char buf[SEAT_ID_MAX]);
/* The seat name in a seat id, or NULL if id (which may be NULL) is not one. */
const char *seat_id_name(const char *id);

/* Whether name may be a seat's user: 1 to 32 letters, digits, '.', '_' or
 * '-', not starting with '-'. It becomes the OWNER= of a udev rule, where
 * udev would substitute '%' and '$', and a quote would end the value. */
bool user_name_valid(const char *name, char *err, size_t errlen);

/* 1 to 64 letters, digits, '-', '_', '.' or ':', as connectors are named
 * (HDMI-A-1, DP-2, eDP-1, DVI-I-1, Virtual-1): it is written into the seat's
 * xorg.conf between quotes, and into file name patterns. */
bool output_name_valid(const char *name);

/* What the daemon itself keeps in runtime_dir next to the seats' own
 * directories (runtime_dir/NAME), or NULL if name is free: "control" is the
 * control socket. The daemon's other names there begin with '.', which no
 * seat name has. */
const char *seat_name_reserved(const char *name);

/* Whether path may be runtime_dir: an absolute path written plainly (no
 * '.', '..', '//' or trailing '/'), short enough for the control socket's
 * address, and a directory of seatd-lease's own: not a top-level directory,
 * not one that other programs share (/var/lib, /run/user), not below one
 * where others may create it first (/tmp) or that is not for run-time files
 * (/proc, /home, /usr). The daemon removes the directories it finds there. */
bool runtime_dir_valid(const char *path, char *err, size_t errlen);
/* Only where path is (for a path resolved through symbolic links). */
bool runtime_dir_place_valid(const char *path, char *err, size_t errlen);

/* "1.5s" style, for messages and summaries. */
void format_duration(uint64_t ms, char *buf, size_t len);

#endif
