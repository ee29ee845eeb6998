"""notify-listen.py SOCKET: stands in for systemd's notify socket. Prints
each message sd_notify sends, one field per line, as it arrives."""

import os
import socket
import sys

path = sys.argv[1]
if os.path.exists(path):
    os.unlink(path)
sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
sock.bind(path)
while True:
    data = sock.recv(65536)
    print(data.decode(errors="replace"), flush=True)
