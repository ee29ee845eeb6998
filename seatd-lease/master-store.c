#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "master-store.h"

#ifdef HAVE_LIBSYSTEMD
#include <systemd/sd-daemon.h>

#define STORE_NAME "drm-master"

int master_store_take(dev_t devnum) {
	char **names = NULL;
	int n = sd_listen_fds_with_names(0, &names);
	int found = -1;
	for (int i = 0; i < n; i++) {
		int fd = SD_LISTEN_FDS_START + i;
		struct stat st;
		if (found < 0 && names != NULL && names[i] != NULL &&
				strcmp(names[i], STORE_NAME) == 0 && fstat(fd, &st) == 0 &&
				S_ISCHR(st.st_mode) && st.st_rdev == devnum) {
			found = fd;
		} else if (names != NULL && names[i] != NULL && strcmp(names[i], STORE_NAME) == 0) {
			/* Another card's (the map changed): it goes. */
			close(fd);
		}
	}
	for (int i = 0; names != NULL && i < n; i++) {
		free(names[i]);
	}
	free(names);
	return found;
}

void master_store_keep(int fd) {
	int r = sd_pid_notify_with_fds(0, 0, "FDSTORE=1\nFDNAME=" STORE_NAME, &fd, 1);
	if (r < 0) {
		log_warning("cannot give the DRM master to systemd's file descriptor store: %s; "
				"a restart of seatd-lease will end the drm seats", strerror(-r));
	} else if (r > 0) {
		log_info("the DRM master is in systemd's file descriptor store: the drm seats "
				"survive a restart of seatd-lease");
	}
}

void master_store_forget(void) {
	sd_notify(0, "FDSTOREREMOVE=1\nFDNAME=" STORE_NAME);
}

#else

int master_store_take(dev_t devnum) {
	(void)devnum;
	return -1;
}

void master_store_keep(int fd) {
	(void)fd;
}

void master_store_forget(void) {
}

#endif
