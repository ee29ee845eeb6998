#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "exit-status.h"
#include "handout-client.h"
#include "load.h"
#include "values.h"
#include "xalloc.h"
#include "xserver-argv.h"
#include "xserver-cmd.h"

/* How long the X server waits for its seat to have a lease (the display
 * manager starts it as soon as logind shows the seat). */
#define LEASE_WAIT_MS 60000

const char *xserver_dm_seat(int nargs, char *const *args) {
	for (int i = 0; i + 1 < nargs; i++) {
		if (strcmp(args[i], "-seat") == 0) {
			return args[i + 1];
		}
	}
	return NULL;
}

/* "vtN": the display manager's VT, which a seat on a lease does not have. */
static bool is_vt(const char *arg) {
	if (strncmp(arg, "vt", 2) != 0 || arg[2] == '\0') {
		return false;
	}
	for (const char *p = arg + 2; *p != '\0'; p++) {
		if (*p < '0' || *p > '9') {
			return false;
		}
	}
	return true;
}

char **xserver_dm_argv(const struct seatmap *map, const struct seat_config *seat, int nargs,
		char *const *args, int lease_fd, const char *conf) {
	char **words = xcalloc((size_t)nargs + 1, sizeof(char *));
	size_t n = 0;
	for (int i = 0; i < nargs; i++) {
		if (!is_vt(args[i])) {
			words[n++] = args[i];
		}
	}
	char **argv = xserver_argv_on_lease(map, seat, words, n, lease_fd, conf);
	free(words);
	return argv;
}

/* The X server the display manager would have run. */
static int exec_plain_x(int nargs, char **args) {
	char **argv = xcalloc((size_t)nargs + 2, sizeof(char *));
	argv[0] = "X";
	for (int i = 0; i < nargs; i++) {
		argv[i + 1] = args[i];
	}
	execvp("X", argv);
	fprintf(stderr, "seatd-lease xserver: cannot run X: %s\n", strerror(errno));
	free(argv);
	return 1;
}

int cmd_xserver(const char *config, int nargs, char **args) {
	const char *seat_arg = xserver_dm_seat(nargs, args);
	if (seat_arg == NULL || strcmp(seat_arg, "seat0") == 0) {
		return exec_plain_x(nargs, args);
	}
	struct seatmap *map = seatmap_load_reported(config, NULL, stderr,
			"seatd-lease xserver started no X server");
	if (map == NULL) {
		return 1;
	}
	const struct seat_config *seat = NULL;
	for (size_t i = 0; i < map->n_seats && seat == NULL; i++) {
		char id[SEAT_ID_MAX];
		if (strcmp(seat_id(map->seats[i].name, id), seat_arg) == 0) {
			seat = &map->seats[i];
		}
	}
	if (seat == NULL) {
		seatmap_free(map);
		return exec_plain_x(nargs, args);
	}
	if (!seat->display_manager) {
		fprintf(stderr, "seatd-lease xserver: %s is seat %s of %s, whose X server seatd-lease "
				"runs itself; give it session = display-manager for a display manager to "
				"run it\n", seat_arg, seat->name, map->path);
		seatmap_free(map);
		return 1;
	}
	int sock, lease_fd;
	char *conf, why[1024];
	int status = handout_request(map->runtime_dir, seat->name, LEASE_WAIT_MS, &sock, &lease_fd,
			&conf, why, sizeof(why));
	if (status != 0) {
		fprintf(stderr, "seatd-lease xserver: seat %s: %s\n", seat->name, why);
		seatmap_free(map);
		return status;
	}
	/* The configuration where the X server alone reads it: no file
	 * anywhere, nothing left behind. */
	int conf_fd = memfd_create("seatd-lease-xorg.conf", 0);
	size_t len = strlen(conf);
	bool written = conf_fd >= 0 && write(conf_fd, conf, len) == (ssize_t)len;
	free(conf);
	/* All three go to the X server: the lease, its configuration, and the
	 * hold, which ends when the X server does (and whatever it started
	 * that kept it). */
	if (!written || fcntl(sock, F_SETFD, 0) != 0 || fcntl(lease_fd, F_SETFD, 0) != 0) {
		fprintf(stderr, "seatd-lease xserver: seat %s: cannot pass its X server's "
				"configuration: %s\n", seat->name, strerror(errno));
		seatmap_free(map);
		return 1;
	}
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", conf_fd);
	char **argv = xserver_dm_argv(map, seat, nargs, args, lease_fd, path);
	execv(argv[0], argv);
	fprintf(stderr, "seatd-lease xserver: seat %s: cannot run %s: %s\n", seat->name, argv[0],
			strerror(errno));
	strv_free(argv);
	seatmap_free(map);
	return 1;
}
