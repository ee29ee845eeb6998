#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fdpass.h"

int fdpass_send(int sock, const char *msg, size_t len, int fd) {
	return fdpass_sendto(sock, NULL, 0, msg, len, fd);
}

int fdpass_sendto(int sock, const void *addr, socklen_t addr_len, const char *msg, size_t len,
		int fd) {
	struct iovec iov = {.iov_base = (void *)msg, .iov_len = len};
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} control;
	struct msghdr mh = {.msg_name = (void *)addr, .msg_namelen = addr_len, .msg_iov = &iov,
		.msg_iovlen = 1};
	if (fd >= 0) {
		memset(&control, 0, sizeof(control));
		mh.msg_control = control.buf;
		mh.msg_controllen = sizeof(control.buf);
		struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	ssize_t n;
	do {
		n = sendmsg(sock, &mh, MSG_NOSIGNAL);
	} while (n < 0 && errno == EINTR);
	if (n >= 0 && n != (ssize_t)len) {
		errno = EMSGSIZE;
	}
	return n == (ssize_t)len ? 0 : -1;
}

ssize_t fdpass_recv(int sock, char *buf, size_t cap, int *fd) {
	struct iovec iov = {.iov_base = buf, .iov_len = cap - 1};
	union {
		char buf[CMSG_SPACE(4 * sizeof(int))];
		struct cmsghdr align;
	} control;
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf,
			.msg_controllen = sizeof(control.buf)};
	*fd = -1;
	ssize_t n;
	do {
		n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
	} while (n < 0 && errno == EINTR);
	if (n < 0) {
		return -1;
	}
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c != NULL; c = CMSG_NXTHDR(&mh, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) {
			continue;
		}
		size_t nfds = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < nfds; i++) {
			int got;
			memcpy(&got, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (*fd < 0) {
				*fd = got;
			} else {
				close(got);
			}
		}
	}
	if (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) {
		if (*fd >= 0) {
			close(*fd);
			*fd = -1;
		}
		errno = EMSGSIZE;
		return -1;
	}
	buf[n] = '\0';
	return n;
}
