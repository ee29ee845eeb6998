"""A seat's user against the root daemon (issue 12), on the rig: each seat's
session is a shell script that runs as lab1 and attacks what seatd-lease
does as root in runtime_dir; the checks are made as root in the guest.

Most attacks run in the seat's first session, which then exits 1 so that
the seat restarts and the daemon acts on what the attack left; the second
session paints and stays. One guest for the module; every test leaves no
seat process and no victim behind."""

import contextlib
import re
import time

import pytest

import rig as rigmod
from seatd import (BIN, CONFIG, PRIMARY, RUNTIME_DIR, SEAT_COLOURS, Supervisor, seat_map,
                   setup_users)

SEAT_DIR = RUNTIME_DIR + "/s1"


@pytest.fixture(scope="module")
def rig():
    with rigmod.Rig("security", heads=2, xorg=True) as r:
        setup_users(r, ["lab1"])
        r.run("mkdir -p /etc/seatd-lease")
        r.run("xsetroot -solid '%s'" % PRIMARY, env=r.x_env())
        # What systemd would set; the rig's init leaves the kernel's default
        # (0), under which a user may hard-link root's files: the daemon must
        # hold either way.
        r.run("sysctl -q fs.protected_hardlinks=0")
        yield r


def seat(session, extra=""):
    return seat_map("x11", [dict(name="s1", outputs="Virtual-2", user="lab1", session=session,
                                 extra=extra)])


def attack(rig, name, script, extra=""):
    """A seat map whose seat runs script (sh, as lab1, $seat being the seat's
    directory) in its first session, which then exits 1; later sessions paint
    and stay."""
    path, done = "/tmp/attack-%s.sh" % name, "/tmp/attack-%s.done" % name
    text = ("seat=$(dirname \"$XDG_RUNTIME_DIR\")\n"
            "if [ ! -e %s ]; then\n  touch %s\n%s\n  echo attack done\n  exit 1\nfi\n"
            "xsetroot -solid '%s'\nexec sleep 100000\n" % (done, done, script, SEAT_COLOURS[0]))
    rig.write_file(path, text.encode(), mode=0o755)
    rig.run("rm -f %s" % done)
    return seat("/bin/sh %s" % path, extra)


@contextlib.contextmanager
def supervisor(rig, text, start=True):
    """A Supervisor that is gone afterwards, however stuck it was (the code
    under test may hang), with every process of lab1."""
    sup = Supervisor(rig, text, start=False)
    try:
        if start:
            sup.start()
        yield sup
    finally:
        try:
            sup.stop(timeout=20)
        except rigmod.RigTimeout:
            rig.run("pkill -KILL -f '^%s -c' || true" % BIN)
        rig.run("pkill -KILL -u lab1 || true; rm -rf %s/*" % RUNTIME_DIR)


def wait_restarted(sup, timeout=60):
    """Until the seat has been running twice (the attack's run, then the next)."""
    deadline = time.monotonic() + timeout
    while True:
        states = re.findall(r"seat s1: \S+ -> (\S+?):?(?: |$)", sup.log(), re.M)
        if states.count("running") >= 2 and states[-1] == "running":
            return
        if time.monotonic() > deadline:
            raise AssertionError("seat s1 did not run again within %ds:\n%s"
                                 % (timeout, sup.log()))
        time.sleep(0.2)


def stat(rig, path):
    return rig.run("stat -c '%%U %%a %%F' %s" % path).stdout.strip()


def test_a_snippet_the_user_can_write_is_refused(rig):
    # Finding 10: xorg_conf was read as root through links, and copied into a
    # file the seat's user can read: a snippet the user can replace leaks
    # any file root can read.
    rig.run("printf 'secret\\n' >/root/secret && chmod 600 /root/secret")
    rig.run("mkdir -p /tmp/lab1-conf && chown lab1 /tmp/lab1-conf")
    rig.run("su -s /bin/sh lab1 -c 'ln -sf /root/secret /tmp/lab1-conf/snippet.conf'")
    m = seat("/bin/sh -c \"exec sleep 100000\"",
             extra="xorg_conf = /tmp/lab1-conf/snippet.conf\n")
    try:
        with supervisor(rig, m) as sup:
            line = sup.wait_log(r"seat s1: .*xorg_conf /tmp/lab1-conf/snippet.conf", timeout=30)
            assert re.search(r"owned by uid|symbolic link", line), line
            assert "secret" not in rig.run("cat %s/xorg.conf 2>/dev/null || true"
                                           % SEAT_DIR).stdout
    finally:
        rig.run("rm -rf /root/secret /tmp/lab1-conf")
