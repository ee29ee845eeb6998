#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "xauth.h"

/* Appends one Xauthority entry to buf at *len. */
static void entry(uint8_t *buf, size_t *len, unsigned family, const char *address,
		const char *number, const char *name, const char *data) {
	buf[(*len)++] = (uint8_t)(family >> 8);
	buf[(*len)++] = (uint8_t)family;
	const char *fields[] = {address, number, name, data};
	for (size_t i = 0; i < 4; i++) {
		size_t n = strlen(fields[i]);
		buf[(*len)++] = (uint8_t)(n >> 8);
		buf[(*len)++] = (uint8_t)n;
		memcpy(buf + *len, fields[i], n);
		*len += n;
	}
}

#define LOCAL 0x0100
#define WILD 0xffff
#define INTERNET 0x0000
#define MIT "MIT-MAGIC-COOKIE-1"

static size_t find(const uint8_t *buf, size_t len, int display, char *cookie) {
	memset(cookie, 0, 32);
	return xauth_find_cookie(buf, len, "labhost", display, (uint8_t *)cookie, 31);
}

static void our_own_file_is_found(void **state) {
	uint8_t buf[128], want[XAUTH_COOKIE_LEN];
	memset(want, 0xa5, sizeof(want));
	size_t len = xauth_encode(7, want, buf, sizeof(buf));
	uint8_t cookie[32];
	assert_int_equal(xauth_find_cookie(buf, len, "any", 7, cookie, sizeof(cookie)),
			XAUTH_COOKIE_LEN);
	assert_memory_equal(cookie, want, XAUTH_COOKIE_LEN);
	assert_int_equal(xauth_find_cookie(buf, len, "any", 8, cookie, sizeof(cookie)), 0);
}

static void the_first_entry_for_this_host_and_display_wins(void **state) {
	uint8_t buf[512] = {0};
	size_t len = 0;
	char cookie[32];
	entry(buf, &len, LOCAL, "otherhost", "0", MIT, "other-host");
	entry(buf, &len, INTERNET, "labhost", "0", MIT, "internet");
	entry(buf, &len, LOCAL, "labhost", "1", MIT, "display-1");
	entry(buf, &len, LOCAL, "labhost", "0", "XDM-AUTHORIZATION-1", "xdm");
	entry(buf, &len, LOCAL, "labhost", "0", MIT, "local-0");
	entry(buf, &len, WILD, "", "0", MIT, "wild-0");
	assert_int_equal(find(buf, len, 0, cookie), strlen("local-0"));
	assert_string_equal(cookie, "local-0");
	assert_int_equal(find(buf, len, 1, cookie), strlen("display-1"));
	assert_string_equal(cookie, "display-1");
	/* An empty number is any display. */
	len = 0;
	entry(buf, &len, LOCAL, "labhost", "", MIT, "any-display");
	assert_int_equal(find(buf, len, 12, cookie), strlen("any-display"));
	assert_string_equal(cookie, "any-display");
}

static void none_or_cut_short_is_no_cookie(void **state) {
	uint8_t buf[512] = {0};
	size_t len = 0;
	char cookie[32];
	assert_int_equal(find(buf, 0, 0, cookie), 0);
	entry(buf, &len, LOCAL, "otherhost", "0", MIT, "other-host");
	assert_int_equal(find(buf, len, 0, cookie), 0);
	size_t first = len;
	entry(buf, &len, WILD, "", "0", MIT, "wild-0");
	for (size_t cut = first; cut < len; cut++) {
		assert_int_equal(find(buf, cut, 0, cookie), 0);
	}
	assert_int_equal(find(buf, len, 0, cookie), strlen("wild-0"));
	/* Longer than the room for it: none. */
	len = 0;
	entry(buf, &len, WILD, "", "0", MIT, "a cookie of more than 31 bytes, too long");
	assert_int_equal(find(buf, len, 0, cookie), 0);
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(our_own_file_is_found),
		cmocka_unit_test(the_first_entry_for_this_host_and_display_wins),
		cmocka_unit_test(none_or_cut_short_is_no_cookie),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
