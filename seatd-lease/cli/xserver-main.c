/*
 * The program seatd-lease-xserver: `seatd-lease xserver` (xserver-cmd.h) on
 * the default seat map, as one program for a display manager whose X server
 * command is a single path that it calls with its own arguments and no
 * words of ours (SDDM's ServerPath). Every argument is the display
 * manager's; none is read as an option of seatd-lease.
 */
#include "seatmap.h"
#include "xserver-cmd.h"

int main(int argc, char **argv) {
	return cmd_xserver(SEATMAP_DEFAULT_PATH, argc - 1, argv + 1);
}
