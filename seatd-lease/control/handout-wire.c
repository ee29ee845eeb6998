#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "handout-wire.h"

/* A name of words' characters: what a seat's section name may hold. */
static bool seat_name_ok(const char *s, size_t len) {
	if (len == 0) {
		return false;
	}
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c <= ' ' || c == 0x7f) {
			return false;
		}
	}
	return true;
}

bool handout_parse_request(const char *buf, size_t len, char *seat, size_t seatlen) {
	static const char verb[] = "lease ";
	size_t vlen = sizeof(verb) - 1;
	if (len < vlen + 2 || memcmp(buf, verb, vlen) != 0 || buf[len - 1] != '\n') {
		return false;
	}
	const char *name = buf + vlen;
	size_t nlen = len - vlen - 1;
	if (!seat_name_ok(name, nlen) || nlen >= seatlen) {
		return false;
	}
	memcpy(seat, name, nlen);
	seat[nlen] = '\0';
	return true;
}

bool handout_parse_reply(const char *buf, size_t len, int *status, const char **text,
		size_t *textlen) {
	const char *nl = memchr(buf, '\n', len);
	if (nl == NULL || nl == buf || nl - buf > 3) {
		return false;
	}
	int n = 0;
	for (const char *p = buf; p < nl; p++) {
		if (*p < '0' || *p > '9') {
			return false;
		}
		n = n * 10 + (*p - '0');
	}
	const char *t = nl + 1;
	size_t tlen = (size_t)(buf + len - t);
	if (memchr(t, '\0', tlen) != NULL) {
		return false;
	}
	if (n != 0) {
		/* One line, why. */
		if (tlen == 0 || t[tlen - 1] != '\n' || memchr(t, '\n', tlen - 1) != NULL) {
			return false;
		}
		tlen--;
	}
	*status = n;
	*text = t;
	*textlen = tlen;
	return true;
}

int handout_send(int sock, const char *msg, size_t len, int fd) {
	struct iovec iov = {.iov_base = (void *)msg, .iov_len = len};
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} control;
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
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
	return n == (ssize_t)len ? 0 : -1;
}

ssize_t handout_recv(int sock, char *buf, size_t cap, int *fd) {
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
