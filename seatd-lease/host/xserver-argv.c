#include "xalloc.h"
#include "xserver-argv.h"

char **xserver_argv_on_lease(const struct seatmap *map, const struct seat_config *seat,
		char *const *words, size_t n_words, int lease_fd, const char *conf) {
	char **argv = xcalloc(n_words + seat->n_xserver_args + 6, sizeof(char *));
	size_t n = 0;
	argv[n++] = xstrdup(map->xserver);
	for (size_t i = 0; i < n_words; i++) {
		argv[n++] = xstrdup(words[i]);
	}
	argv[n++] = xstrdup("-masterfd");
	argv[n++] = xasprintf("%d", lease_fd);
	if (conf[0] != '\0') {
		argv[n++] = xstrdup("-config");
		argv[n++] = xstrdup(conf);
	}
	for (size_t i = 0; i < seat->n_xserver_args; i++) {
		argv[n++] = xstrdup(seat->xserver_args[i]);
	}
	argv[n] = NULL;
	return argv;
}
