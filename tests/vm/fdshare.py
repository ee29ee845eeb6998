"""Run in the guest as root: which descriptors of two processes are the same
open file (kcmp(2) KCMP_FILE), which readlink cannot tell for the many fds
that all read /dev/dri/card0.

    python3 fdshare.py PID_A PID_B  ->  one line "FD_A FD_B" per shared file
"""

import ctypes
import os
import sys

SYS_KCMP = 312  # x86_64
KCMP_FILE = 0

libc = ctypes.CDLL(None, use_errno=True)


def fds(pid):
    return [int(fd) for fd in os.listdir("/proc/%d/fd" % pid)]


def main():
    a, b = int(sys.argv[1]), int(sys.argv[2])
    for fa in fds(a):
        for fb in fds(b):
            r = libc.syscall(SYS_KCMP, a, b, KCMP_FILE, fa, fb)
            if r < 0:
                err = ctypes.get_errno()
                # EBADF: one of them closed meanwhile.
                if err != 9:
                    sys.exit("kcmp: %s" % os.strerror(err))
            elif r == 0:
                print(fa, fb)


main()
