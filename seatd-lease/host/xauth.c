#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/random.h>
#include <X11/Xauth.h>

#include "runtime.h"
#include "xalloc.h"
#include "xauth.h"

#define MIT_COOKIE "MIT-MAGIC-COOKIE-1"

size_t xauth_encode(int display, const uint8_t cookie[XAUTH_COOKIE_LEN], uint8_t *buf,
		size_t len) {
	char number[16], name[] = MIT_COOKIE;
	int nlen = snprintf(number, sizeof(number), "%d", display);
	Xauth entry = {
		.family = FamilyWild,
		.address_length = 0,
		.address = (char *)"",
		.number_length = (unsigned short)nlen,
		.number = number,
		.name_length = sizeof(name) - 1,
		.name = name,
		.data_length = XAUTH_COOKIE_LEN,
		.data = (char *)cookie,
	};
	char *text = NULL;
	size_t size = 0;
	FILE *out = xopen_memstream(&text, &size);
	bool ok = XauWriteAuth(out, &entry) == 1;
	ok = fclose(out) == 0 && ok && size <= len;
	if (ok) {
		memcpy(buf, text, size);
	}
	free(text);
	return ok ? size : 0;
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
	if (len == 0) {
		snprintf(err, errlen, "cannot encode an Xauthority entry: %s", strerror(errno));
		return -1;
	}
	/* A cookie of an earlier start is dead: a new file, the user's to read
	 * but not to replace (the directory is root's). */
	if (runtime_write_file(dir, name, buf, len, 0600, uid, gid) != 0) {
		snprintf(err, errlen, "cannot write %s/%s: %s", dir, name, strerror(errno));
		return -1;
	}
	return 0;
}

/* One counted field of an entry at *off; false when data ends first. */
static bool get_field(const uint8_t *data, size_t size, size_t *off, const uint8_t **field,
		size_t *len) {
	if (size - *off < 2) {
		return false;
	}
	*len = (size_t)data[*off] << 8 | data[*off + 1];
	if (size - *off - 2 < *len) {
		return false;
	}
	*field = data + *off + 2;
	*off += 2 + *len;
	return true;
}

static bool field_is(const uint8_t *field, size_t len, const char *text) {
	return len == strlen(text) && memcmp(field, text, len) == 0;
}

size_t xauth_find_cookie(const uint8_t *data, size_t size, const char *host, int display,
		uint8_t *cookie, size_t len) {
	char number[16];
	snprintf(number, sizeof(number), "%d", display);
	size_t off = 0;
	while (size - off >= 2) {
		unsigned family = (unsigned)data[off] << 8 | data[off + 1];
		off += 2;
		const uint8_t *address, *num, *name, *value;
		size_t address_len, num_len, name_len, value_len;
		if (!get_field(data, size, &off, &address, &address_len)
				|| !get_field(data, size, &off, &num, &num_len)
				|| !get_field(data, size, &off, &name, &name_len)
				|| !get_field(data, size, &off, &value, &value_len)) {
			return 0;
		}
		bool for_host = family == FamilyWild
			|| (family == FamilyLocal && field_is(address, address_len, host));
		bool for_display = num_len == 0 || field_is(num, num_len, number);
		if (for_host && for_display && field_is(name, name_len, MIT_COOKIE)) {
			if (value_len > len) {
				return 0;
			}
			memcpy(cookie, value, value_len);
			return value_len;
		}
	}
	return 0;
}
