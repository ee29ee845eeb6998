#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "log.h"
#include "sock.h"

int sock_bind(const char *path, int type) {
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	if (strlen(path) >= sizeof(addr.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(addr.sun_path, path);
	int fd = socket(AF_UNIX, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		return -1;
	}
	unlink(path);
	mode_t old = umask(0177);
	int ret = bind(fd, (struct sockaddr *)&addr, sizeof(addr));
	umask(old);
	if (ret != 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

int sock_accept(int fd, struct ucred *cred, const char *what) {
	int cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (cfd < 0) {
		return -1;
	}
	socklen_t len = sizeof(*cred);
	if (getsockopt(cfd, SOL_SOCKET, SO_PEERCRED, cred, &len) != 0) {
		log_warning("%s: cannot tell who connected (%s); refused", what, strerror(errno));
		close(cfd);
		return -1;
	}
	return cfd;
}
