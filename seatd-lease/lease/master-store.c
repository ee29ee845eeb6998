#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "log.h"
#include "master-store.h"
#include "systemd-proto.h"

#define STORE_PREFIX "drm-master"
#define MAX_STORED 16

/* What systemd handed back at this start, read once: fd -1 once taken. */
static struct stored {
	char name[64];
	int fd;
	dev_t devnum;
} stored[MAX_STORED];
static int n_stored = -1;

static void store_name(dev_t devnum, char *buf, size_t len) {
	snprintf(buf, len, STORE_PREFIX "-%u-%u", major(devnum), minor(devnum));
}

static void read_store(void) {
	if (n_stored >= 0) {
		return;
	}
	n_stored = 0;
	char **names = NULL;
	int n = systemd_listen_fds(&names);
	if (n < 0) {
		log_warning("systemd's LISTEN_PID, LISTEN_FDS or LISTEN_FDNAMES is malformed: "
				"no DRM master is taken back from its file descriptor store");
	}
	for (int i = 0; i < n; i++) {
		int fd = SYSTEMD_LISTEN_FDS_START + i;
		struct stat st;
		const char *name = names != NULL ? names[i] : NULL;
		if (name != NULL && strncmp(name, STORE_PREFIX, strlen(STORE_PREFIX)) == 0 &&
				n_stored < MAX_STORED && fstat(fd, &st) == 0 && S_ISCHR(st.st_mode)) {
			struct stored *s = &stored[n_stored++];
			snprintf(s->name, sizeof(s->name), "%s", name);
			s->fd = fd;
			s->devnum = st.st_rdev;
		} else if (name != NULL && strncmp(name, STORE_PREFIX, strlen(STORE_PREFIX)) == 0) {
			close(fd);
		}
	}
	systemd_names_free(names);
}

int master_store_take(dev_t devnum) {
	read_store();
	for (int i = 0; i < n_stored; i++) {
		if (stored[i].fd >= 0 && stored[i].devnum == devnum) {
			int fd = stored[i].fd;
			stored[i].fd = -1;
			return fd;
		}
	}
	return -1;
}

static void remove_name(const char *name) {
	char text[128];
	if (snprintf(text, sizeof(text), "FDSTOREREMOVE=1\nFDNAME=%s", name) < (int)sizeof(text)) {
		systemd_notify(text, -1);
	}
}

void master_store_drop_untaken(void) {
	read_store();
	for (int i = 0; i < n_stored; i++) {
		if (stored[i].fd >= 0) {
			log_notice("systemd kept the DRM master of device %u:%u, a card no seat is on "
					"now: letting it go, and its leases with it", major(stored[i].devnum),
					minor(stored[i].devnum));
			close(stored[i].fd);
			stored[i].fd = -1;
			remove_name(stored[i].name);
		}
	}
}

void master_store_keep(int fd, dev_t devnum) {
	char text[128], name[64];
	store_name(devnum, name, sizeof(name));
	/* An earlier version's name goes: this card's master is stored anew. */
	for (int i = 0; i < n_stored; i++) {
		if (stored[i].devnum == devnum && strcmp(stored[i].name, name) != 0) {
			remove_name(stored[i].name);
		}
	}
	snprintf(text, sizeof(text), "FDSTORE=1\nFDNAME=%s", name);
	int r = systemd_notify(text, fd);
	if (r < 0) {
		log_warning("cannot give the DRM master of %u:%u to systemd's file descriptor "
				"store: %s; a restart of seatd-lease will end that card's drm seats",
				major(devnum), minor(devnum), strerror(-r));
	} else if (r > 0) {
		log_info("the DRM master of %u:%u is in systemd's file descriptor store: its drm "
				"seats survive a restart of seatd-lease", major(devnum), minor(devnum));
	}
}

void master_store_forget(dev_t devnum) {
	char name[64];
	store_name(devnum, name, sizeof(name));
	remove_name(name);
	/* Under an earlier version's name, if it was taken from there. */
	for (int i = 0; i < n_stored; i++) {
		if (stored[i].devnum == devnum && strcmp(stored[i].name, name) != 0) {
			remove_name(stored[i].name);
		}
	}
}
