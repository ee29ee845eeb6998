#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

#include "runtime.h"
#include "xauth.h"

#define FAMILY_WILD 0xffff

static size_t put_field(uint8_t *buf, size_t off, const void *data, size_t len) {
	buf[off] = (uint8_t)(len >> 8);
	buf[off + 1] = (uint8_t)len;
	memcpy(buf + off + 2, data, len);
	return off + 2 + len;
}

size_t xauth_encode(int display, const uint8_t cookie[XAUTH_COOKIE_LEN], uint8_t *buf,
		size_t len) {
	static const char name[] = "MIT-MAGIC-COOKIE-1";
	char number[16];
	int nlen = snprintf(number, sizeof(number), "%d", display);
	size_t need = 2 + 2 + 2 + (size_t)nlen + 2 + strlen(name) + 2 + XAUTH_COOKIE_LEN;
	if (len < need) {
		return 0;
	}
	buf[0] = FAMILY_WILD >> 8;
	buf[1] = FAMILY_WILD & 0xff;
	size_t off = put_field(buf, 2, "", 0);
	off = put_field(buf, off, number, (size_t)nlen);
	off = put_field(buf, off, name, strlen(name));
	off = put_field(buf, off, cookie, XAUTH_COOKIE_LEN);
	return off;
}

int xauth_write(const char *dir, const char *name, int display, uid_t uid, gid_t gid,
		char *err, size_t errlen) {
	uint8_t cookie[XAUTH_COOKIE_LEN];
	if (getrandom(cookie, sizeof(cookie), 0) != sizeof(cookie)) {
		snprintf(err, errlen, "getrandom: %s", strerror(errno));
		return -1;
	}
	uint8_t buf[128];
	size_t len = xauth_encode(display, cookie, buf, sizeof(buf));
	/* A cookie of an earlier start is dead: a new file, the user's to read
	 * but not to replace (the directory is root's). */
	if (runtime_write_file(dir, name, buf, len, 0600, uid, gid) != 0) {
		snprintf(err, errlen, "cannot write %s/%s: %s", dir, name, strerror(errno));
		return -1;
	}
	return 0;
}
