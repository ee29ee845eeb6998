#include <stdlib.h>
#include <string.h>

#include "assign-mode.h"
#include "values.h"
#include "xalloc.h"

struct seat_config assign_mode_config(const struct seat_config *seat, const char *screen,
		unsigned fkey, const char *state_path) {
	struct seat_config c = seat_config_copy(seat);
	for (size_t i = 0; i < c.n_inputs; i++) {
		input_match_finish(&c.inputs[i]);
	}
	free(c.inputs);
	c.inputs = NULL;
	c.n_inputs = 0;
	size_t len = 1;
	for (size_t i = 0; i < c.n_outputs; i++) {
		len += strlen(c.outputs[i]) + 1;
	}
	char *outputs = xcalloc(len, 1);
	for (size_t i = 0; i < c.n_outputs; i++) {
		strcat(strcat(outputs, i > 0 ? "," : ""), c.outputs[i]);
	}
	strv_free(c.session);
	c.session = xcalloc(6, sizeof(*c.session));
	c.session[0] = xstrdup(screen);
	c.session[1] = xstrdup(c.name);
	c.session[2] = outputs;
	c.session[3] = xasprintf("F%u", fkey);
	c.session[4] = xstrdup(state_path);
	return c;
}
