/*
 * The input match parser on any word: a match it accepts is formatted (as
 * a word of an `inputs =` line, quoted where needed), split as that line is
 * and parsed again, and must come back equal: what `check --probe` and the
 * daemon's log show is what the map said.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "match.h"
#include "values.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	if (size > 4096 || memchr(data, '\0', size) != NULL) {
		return 0; /* a word of the map: one line, no NUL */
	}
	char *word = malloc(size + 1);
	if (word == NULL) {
		return 0;
	}
	memcpy(word, data, size);
	word[size] = '\0';
	char err[512];
	struct input_match m;
	if (input_match_parse(word, &m, err, sizeof(err))) {
		char *text = input_match_format(&m);
		char **words = NULL;
		size_t n = 0;
		struct input_match back;
		if (!split_words(text, &words, &n, err, sizeof(err)) || n != 1 ||
				!input_match_parse(words[0], &back, err, sizeof(err))) {
			abort(); /* our own format must read back as one word */
		}
		strv_free(words);
		if (!input_match_equal(&m, &back)) {
			abort();
		}
		input_match_finish(&back);
		free(text);
		input_match_finish(&m);
	}
	free(word);
	return 0;
}
