#include <stdio.h>

#include "seat0-keyboard.h"

bool seat0_keyboard_warning(struct seat0_keyboards k, char *line, size_t len) {
	line[0] = '\0';
	if (k.keyboards == 0 || k.left > 0) {
		return false;
	}
	snprintf(line, len, "the seats take every keyboard (%zu): seat0, the console's and the "
			"display manager's seat, has none while they run. The ways back: "
			"`seatd-lease stop` over ssh gives every output and device back; "
			"seatd-lease=off on the kernel's command line keeps seatd-lease from starting "
			"at boot; or leave a keyboard out of every seat's inputs =", k.keyboards);
	return true;
}
