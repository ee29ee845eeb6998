#ifndef SEATD_LEASE_COMMANDS_H
#define SEATD_LEASE_COMMANDS_H

#include <stdio.h>

/*
 * The control socket's verbs: status [--json], start NAME, stop NAME,
 * restart NAME, reload, and (root's alone: control.c) assign-begin NAME...
 * and assign-end (assign-mode.h). A control_fn (control.h): data is the
 * struct fleet; writes the answer to out and returns a CONTROL_* status.
 */
int commands_handle(void *data, int argc, char **argv, FILE *out);

#endif
