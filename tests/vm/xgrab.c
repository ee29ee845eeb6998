/*
 * xgrab: a client that holds a server grab on $DISPLAY's X server, as a
 * screen locker or a misbehaving client may. Once the server has the grab
 * (a round trip after GrabServer), it prints "grabbed" and holds it until it
 * is killed: its connection then closes, which ends the grab.
 *
 *   xgrab
 *
 * While the grab lasts, the server serves no other client: their requests
 * and new connections wait.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <xcb/xcb.h>

int main(void)
{
	xcb_connection_t *conn = xcb_connect(NULL, NULL);
	int error = xcb_connection_has_error(conn);
	if (error != 0) {
		fprintf(stderr, "xgrab: cannot connect to $DISPLAY (xcb error %d)\n", error);
		return 1;
	}
	xcb_grab_server(conn);
	/* Any reply proves the server has handled the grab. */
	free(xcb_get_input_focus_reply(conn, xcb_get_input_focus(conn), NULL));
	if (xcb_connection_has_error(conn)) {
		fprintf(stderr, "xgrab: the X server closed the connection\n");
		return 1;
	}
	printf("grabbed\n");
	fflush(stdout);
	for (;;) {
		pause();
	}
}
