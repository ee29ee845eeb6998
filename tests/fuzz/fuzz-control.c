/*
 * The control socket's request parser on any bytes a client may send (at
 * most a request buffer's worth): it refuses, or gives words that are
 * non-empty, hold no blank and no control character, and are at most
 * CONTROL_MAX_WORDS.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "control-wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	char buf[512];
	if (size > sizeof(buf) - 1) {
		return 0; /* the daemon reads no more than this */
	}
	memcpy(buf, data, size);
	buf[size] = '\0';
	char *argv[CONTROL_MAX_WORDS + 1];
	int argc = control_parse(buf, size, argv);
	if (argc < -2 || argc > CONTROL_MAX_WORDS) {
		abort();
	}
	for (int i = 0; i < argc; i++) {
		if (argv[i] == NULL || argv[i][0] == '\0' || argv[i] < buf ||
				argv[i] >= buf + size) {
			abort();
		}
		for (const unsigned char *p = (const unsigned char *)argv[i]; *p != '\0'; p++) {
			if (*p <= 0x20 || *p == 0x7f) {
				abort();
			}
		}
	}
	if (argc >= 0 && argv[argc] != NULL) {
		abort();
	}
	return 0;
}
