/*
 * The control client's reading of the daemon's reply (control_exchange) on
 * any bytes a peer on the control socket may answer with, read through a
 * socket pair. A reply is a status line and text for the user: the client
 * must return that status, which must be an exit status (0 to 255), and
 * print the text exactly (up to a NUL), on stdout for 0, on stderr after
 * "seatd-lease status: " for any other; a reply without a status line (or
 * with one that is not an exit status) is EXIT_FAILED with its message
 * on stderr. Nothing else is printed.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "control-client.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);
/* The sanitizers' reports go to the real stderr while the target's is taken. */
extern void __sanitizer_set_report_fd(void *fd) __attribute__((weak));

static int real_out = -1, real_err = -1, got_out = -1, got_err = -1;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
	real_out = dup(1);
	real_err = dup(2);
	got_out = memfd_create("stdout", MFD_CLOEXEC);
	got_err = memfd_create("stderr", MFD_CLOEXEC);
	if (real_out < 0 || real_err < 0 || got_out < 0 || got_err < 0) {
		abort();
	}
	if (__sanitizer_set_report_fd != NULL) {
		__sanitizer_set_report_fd((void *)(intptr_t)real_err);
	}
	return 0;
}

/* What was printed on fd since the last time, NUL-terminated (free()). */
static char *printed(int fd) {
	off_t len = lseek(fd, 0, SEEK_END);
	char *s = malloc((size_t)len + 1);
	if (len < 0 || s == NULL || pread(fd, s, (size_t)len, 0) != len ||
			ftruncate(fd, 0) != 0 || lseek(fd, 0, SEEK_SET) != 0) {
		abort();
	}
	s[len] = '\0';
	return s;
}

static bool printed_is(int fd, const char *prefix, const char *text) {
	char *s = printed(fd);
	size_t n = strlen(prefix);
	bool same = strncmp(s, prefix, n) == 0 && strcmp(s + n, text) == 0;
	free(s);
	return same;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	if (size > 65536) {
		return 0; /* what a socket pair holds unread */
	}
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
		abort();
	}
	if (size > 0 && write(sv[1], data, size) != (ssize_t)size) {
		abort();
	}
	shutdown(sv[1], SHUT_WR);
	char *argv[] = {"status", NULL};
	fflush(stdout);
	fflush(stderr);
	dup2(got_out, 1);
	dup2(got_err, 2);
	int status = control_exchange(sv[0], "fuzz", 1, argv, 5000);
	fflush(stdout);
	fflush(stderr);
	dup2(real_out, 1);
	dup2(real_err, 2);
	close(sv[1]);
	/* What the reply says, read as a C string: the client's reading. */
	char *reply = malloc(size + 1);
	if (reply == NULL) {
		abort();
	}
	memcpy(reply, data, size);
	reply[size] = '\0';
	const char *nl = strchr(reply, '\n');
	int want = -1;
	bool is_reply = nl != NULL && sscanf(reply, "%d", &want) == 1 && want >= 0 && want <= 255;
	if (!is_reply) {
		if (status != EXIT_FAILED || !printed_is(got_out, "", "") ||
				!printed_is(got_err, "seatd-lease status: ", "the daemon closed the "
						"connection without an answer\n")) {
			abort();
		}
	} else if (status != want || !printed_is(got_out, "", want == 0 ? nl + 1 : "") ||
			!printed_is(got_err, want == 0 ? "" : "seatd-lease status: ",
					want == 0 ? "" : nl + 1)) {
		abort();
	}
	free(reply);
	return 0;
}
