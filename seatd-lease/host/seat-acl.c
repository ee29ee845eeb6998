#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "devacl.h"
#include "log.h"
#include "runtime.h"
#include "seat-acl.h"

#define NODE_PREFIX "/dev/dri/renderD"

int seat_acl_grant(const char *dir, const char *seat, const char *node, uid_t uid) {
	char record[128];
	int n = snprintf(record, sizeof(record), "%u %s\n", (unsigned)uid, node);
	if (n < 0 || (size_t)n >= sizeof(record) ||
			runtime_write_file(dir, SEAT_ACL_RECORD, record, (size_t)n, 0644, 0, 0) != 0) {
		log_warning("seat %s: cannot record its user's entry on %s (%s): not granted", seat,
				node, n < 0 || (size_t)n >= sizeof(record) ? "name too long" : strerror(errno));
		return -1;
	}
	if (devacl_grant(node, uid) != 0) {
		log_warning("seat %s: cannot give its user %s (%s): its compositor cannot render on "
				"the GPU", seat, node, strerror(errno));
		return -1;
	}
	log_info("seat %s: its user may use %s while it runs", seat, node);
	return 0;
}

/* The record in seatfd, if it is one of ours: a regular file of root's. */
static int read_record(int seatfd, unsigned *uid, char *node, size_t len) {
	int fd = openat(seatfd, SEAT_ACL_RECORD, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		return -1;
	}
	struct stat st;
	char buf[160];
	ssize_t n = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == 0
		? read(fd, buf, sizeof(buf) - 1) : -1;
	close(fd);
	if (n <= 0) {
		return -1;
	}
	buf[n] = '\0';
	char *end, *nl = strchr(buf, '\n');
	unsigned long u = strtoul(buf, &end, 10);
	if (nl == NULL || end == buf || *end != ' ' || u > 0xffffffffUL ||
			(size_t)(nl - end - 1) >= len) {
		return -1;
	}
	*uid = (unsigned)u;
	memcpy(node, end + 1, (size_t)(nl - end - 1));
	node[nl - end - 1] = '\0';
	return strncmp(node, NODE_PREFIX, strlen(NODE_PREFIX)) == 0 &&
		strchr(node + strlen(NODE_PREFIX), '/') == NULL ? 0 : -1;
}

void seat_acl_revoke(int seatfd, const char *seat) {
	unsigned uid;
	char node[128];
	if (read_record(seatfd, &uid, node, sizeof(node)) == 0) {
		if (devacl_revoke(node, (uid_t)uid) != 0 && errno != ENOENT) {
			log_error("seat %s: cannot take %s back from uid %u: %s", seat, node, uid,
					strerror(errno));
		}
	}
	if (unlinkat(seatfd, SEAT_ACL_RECORD, 0) != 0 && errno != ENOENT) {
		log_warning("seat %s: cannot remove its record %s: %s", seat, SEAT_ACL_RECORD,
				strerror(errno));
	}
}
