/*
 * What pids.c reads (pids.h): a line of a seat's pids record and the text
 * of /proc/PID/stat, on any bytes. A record line it takes names an X server
 * or a session, and is written again as pids_write writes one and read back
 * the same (the executable trimmed of " (deleted)" once more, as the reader
 * trims it). A stat text is also made as the kernel writes one, with a
 * command name of any bytes (')', blanks and newlines too): its process
 * group and start time must come back.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pids.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_line(const char *line) {
	struct pids_line rec;
	if (!pids_parse_line(line, &rec)) {
		return;
	}
	if ((strcmp(rec.what, "xserver") != 0 && strcmp(rec.what, "session") != 0) ||
			strlen(rec.exe) >= sizeof(rec.exe)) {
		abort();
	}
	/* pids.c's record_line(), then its reading again. */
	static char again[PATH_MAX + 128];
	snprintf(again, sizeof(again), "%s %d %llu %u %s", rec.what, (int)rec.pid, rec.start,
			(unsigned)rec.uid, rec.exe);
	static struct pids_line back;
	if (!pids_parse_line(again, &back) || strcmp(back.what, rec.what) != 0 ||
			back.pid != rec.pid || back.start != rec.start || back.uid != rec.uid) {
		abort();
	}
	static const char deleted[] = " (deleted)";
	size_t n = strlen(rec.exe), k = strlen(deleted);
	if (n > k && strcmp(rec.exe + n - k, deleted) == 0) {
		rec.exe[n - k] = '\0';
	}
	if (strcmp(back.exe, rec.exe) != 0) {
		abort();
	}
}

/* A number for a stat field from the input (0 when it runs out). */
static long long take(const uint8_t **p, const uint8_t *end) {
	uint64_t v = 0;
	size_t n = end - *p < 8 ? (size_t)(end - *p) : 8;
	memcpy(&v, *p, n);
	*p += n;
	return (long long)v;
}

/* The stat text of a process whose command name is the input's first bytes
 * (up to a NUL; the kernel's is at most 15, but any will do). */
static void check_stat(const uint8_t *data, size_t size) {
	const uint8_t *nul = memchr(data, '\0', size);
	size_t comm_len = nul != NULL ? (size_t)(nul - data) : size;
	if (comm_len > 64) {
		comm_len = 64;
	}
	const uint8_t *p = data + comm_len + (nul != NULL), *end = data + size;
	char comm[65];
	memcpy(comm, data, comm_len);
	comm[comm_len] = '\0';
	static const char states[] = "RSDZTtXxKWPI";
	char state = states[(p < end ? *p++ : 0) % (sizeof(states) - 1)];
	int pgrp = (int)take(&p, end);
	unsigned long long start = (unsigned long long)take(&p, end);
	char text[2048];
	int len = snprintf(text, sizeof(text), "%d (%s) %c %d %d", (int)take(&p, end), comm, state,
			(int)take(&p, end), pgrp);
	/* Fields 6 to 21 (some negative: tty_nr, tpgid, priority, nice), 22, and
	 * the rest to 52. */
	for (int field = 6; field <= 52; field++) {
		if (field == 22) {
			len += snprintf(text + len, sizeof(text) - (size_t)len, " %llu", start);
		} else {
			len += snprintf(text + len, sizeof(text) - (size_t)len, " %lld", take(&p, end));
		}
	}
	snprintf(text + len, sizeof(text) - (size_t)len, "\n");
	pid_t got_pgrp = 0;
	unsigned long long got_start = 0;
	if (!pids_parse_stat(text, &got_pgrp, &got_start) || got_pgrp != pgrp ||
			got_start != start) {
		fprintf(stderr, "stat misread (pgrp %d, start %llu): %s", (int)got_pgrp, got_start,
				text);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	if (size > 8192) {
		return 0; /* a record and a stat text are shorter */
	}
	char *text = malloc(size + 1);
	if (text == NULL) {
		return 0;
	}
	memcpy(text, data, size);
	text[size] = '\0';
	/* Any stat text: taken or not, never read out of bounds. */
	pid_t pgrp;
	unsigned long long start;
	pids_parse_stat(text, &pgrp, &start);
	/* A record line is what strtok_r leaves of the record between newlines. */
	text[strcspn(text, "\n")] = '\0';
	check_line(text);
	free(text);
	check_stat(data, size);
	return 0;
}
