#ifndef SEATD_LEASE_FDPASS_H
#define SEATD_LEASE_FDPASS_H

#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>

/*
 * One message with at most one file descriptor (SCM_RIGHTS), on a socket
 * that keeps messages whole (SOCK_SEQPACKET): the lease hand-out's, and the
 * card's descriptor that drm-card.c's opener passes back; or bytes of a
 * stream with it (a libseat socket's), where a "message" is what one call
 * sends or what is there to read.
 */

/* Sends one message, with fd (unless fd < 0); -1 with errno (EMSGSIZE:
 * only part of it went). */
int fdpass_send(int sock, const char *msg, size_t len, int fd);
/* The same to the address addr (addr_len bytes) on an unconnected socket
 * (a datagram one: systemd's notification socket). */
int fdpass_sendto(int sock, const void *addr, socklen_t addr_len, const char *msg, size_t len,
		int fd);
/* Receives one message into buf (NUL-terminated: cap - 1 bytes at most)
 * and the fd that came with it into *fd (-1: none; any more are closed);
 * its length, 0 at the peer's end, -1 with errno (EMSGSIZE: too long). */
ssize_t fdpass_recv(int sock, char *buf, size_t cap, int *fd);

#endif
