#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <X11/Xauth.h>
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

/* What we write is what libXau (and so every X client) reads. */
static void libxau_reads_back_what_is_written(void **state) {
	uint8_t buf[128], cookie[XAUTH_COOKIE_LEN];
	for (size_t i = 0; i < sizeof(cookie); i++) {
		cookie[i] = (uint8_t)(i * 37 + 1);
	}
	size_t len = xauth_encode(12345, cookie, buf, sizeof(buf));
	assert_true(len > 0);
	FILE *in = fmemopen(buf, len, "r");
	assert_non_null(in);
	Xauth *a = XauReadAuth(in);
	assert_non_null(a);
	assert_int_equal(a->family, FamilyWild);
	assert_int_equal(a->address_length, 0);
	assert_int_equal(a->number_length, 5);
	assert_memory_equal(a->number, "12345", 5);
	assert_int_equal(a->name_length, strlen(MIT));
	assert_memory_equal(a->name, MIT, strlen(MIT));
	assert_int_equal(a->data_length, XAUTH_COOKIE_LEN);
	assert_memory_equal(a->data, cookie, XAUTH_COOKIE_LEN);
	XauDisposeAuth(a);
	assert_null(XauReadAuth(in)); /* one entry, nothing after it */
	fclose(in);
	/* Too small a buffer is no entry, not a cut one. */
	assert_int_equal(xauth_encode(1, cookie, buf, 20), 0);
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(our_own_file_is_found),
		cmocka_unit_test(libxau_reads_back_what_is_written),
		cmocka_unit_test(the_first_entry_for_this_host_and_display_wins),
		cmocka_unit_test(none_or_cut_short_is_no_cookie),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
