#include <fcntl.h>
#include <linux/input.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "input-hold.h"
#include "xalloc.h"

struct input_hold {
	int *fds;
	int n;
};

/* An event device, opened without following a link or blocking, and
 * grabbed; -1 if it is none or another process has it. */
static int hold_one(const char *node) {
	int fd = open(node, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	if (fd < 0) {
		return -1;
	}
	if (fstat(fd, &st) != 0 || !S_ISCHR(st.st_mode) ||
			ioctl(fd, EVIOCGRAB, (void *)1) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

struct input_hold *input_hold_take(char *const *nodes) {
	struct input_hold *hold = xcalloc(1, sizeof(*hold));
	size_t n = 0;
	while (nodes[n] != NULL) {
		n++;
	}
	hold->fds = xcalloc(n + 1, sizeof(*hold->fds));
	for (size_t i = 0; i < n; i++) {
		int fd = hold_one(nodes[i]);
		if (fd >= 0) {
			hold->fds[hold->n++] = fd;
		}
	}
	return hold;
}

int input_hold_count(const struct input_hold *hold) {
	return hold != NULL ? hold->n : 0;
}

void input_hold_release(struct input_hold *hold) {
	if (hold == NULL) {
		return;
	}
	for (int i = 0; i < hold->n; i++) {
		close(hold->fds[i]); /* ends the grab */
	}
	free(hold->fds);
	free(hold);
}
