"""A seat's user against the root daemon, on the rig: each seat's
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
def rig(guest):
    setup_users(guest, ["lab1"])
    guest.run("mkdir -p /etc/seatd-lease")
    guest.run("xsetroot -solid '%s'" % PRIMARY, env=guest.x_env())
    # Under protected_hardlinks=0 a user may hard-link root's files: the
    # daemon must hold even then. The shared guest gets its value back.
    before = guest.run("sysctl -n fs.protected_hardlinks").stdout.strip()
    guest.run("sysctl -q fs.protected_hardlinks=0")
    yield guest
    guest.run("sysctl -q fs.protected_hardlinks=%s" % before)


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


def test_the_seat_directory_is_roots_and_the_user_cannot_swap_xdg(rig):
    # Finding 1: root made and chowned runtime_dir/NAME/xdg by path; a
    # session that put a symlink there had root give its target away.
    rig.run("rm -rf /var/lib/victim && mkdir -m 755 /var/lib/victim")
    m = attack(rig, "xdg", "  mv \"$XDG_RUNTIME_DIR\" \"$seat/xdg.old\" || "
               "rm -rf \"$XDG_RUNTIME_DIR\"\n  ln -s /var/lib/victim \"$XDG_RUNTIME_DIR\"")
    try:
        with supervisor(rig, m) as sup:
            wait_restarted(sup)
            assert stat(rig, "/var/lib/victim") == "root 755 directory"
            assert stat(rig, SEAT_DIR) == "root 755 directory"
            assert stat(rig, SEAT_DIR + "/xdg") == "lab1 700 directory"
            assert stat(rig, SEAT_DIR + "/xauthority") == "lab1 600 regular file"
            assert rig.run("ls -A %s/xdg" % SEAT_DIR).stdout == ""
    finally:
        rig.run("rm -rf /var/lib/victim")


def test_root_writes_through_no_link_the_user_made(rig):
    # Finding 2 (pids.new, a symlink: root wrote the pids record through it)
    # and root's fchown of session.log (a hard link to a file of root's).
    rig.run("printf 'precious\\n' >/var/lib/victim-file && chmod 600 /var/lib/victim-file && "
            "cp -p /var/lib/victim-file /var/lib/victim-log")
    m = attack(rig, "links", "  ln -s /var/lib/victim-file \"$seat/pids.new\"\n"
               "  rm -f \"$seat/session.log\"; ln /var/lib/victim-log \"$seat/session.log\"")
    try:
        with supervisor(rig, m) as sup:
            wait_restarted(sup)
            for victim in ("/var/lib/victim-file", "/var/lib/victim-log"):
                assert stat(rig, victim) == "root 600 regular file"
                assert rig.run("cat %s" % victim).stdout == "precious\n", victim
            assert "xserver " in rig.run("cat %s/pids" % SEAT_DIR).stdout
    finally:
        rig.run("rm -f /var/lib/victim-file /var/lib/victim-log")


def test_fifos_in_the_seat_directory_do_not_hang_the_daemon(rig):
    # Finding 3: the daemon opened xorg.conf, Xorg.stderr and session.log
    # without O_NONBLOCK: a FIFO blocked it in open(), every seat with it.
    m = attack(rig, "fifos", "  for f in xorg.conf Xorg.stderr session.log; do "
               "rm -f \"$seat/$f\"; mkfifo \"$seat/$f\"; done")
    with supervisor(rig, m) as sup:
        wait_restarted(sup, timeout=40)
        status = rig.run("timeout 10 %s -c %s status" % (BIN, CONFIG), check=False)
        assert status.status == 0, status.stderr
        for f in ("xorg.conf", "Xorg.stderr", "session.log"):
            assert "regular" in stat(rig, "%s/%s" % (SEAT_DIR, f)), f


def test_a_forged_pids_record_kills_nothing(rig):
    # Finding 3: the next run after a SIGKILL trusted the pids record, which
    # the seat's user could write, and killed what it named.
    victim = rig.spawn("echo $$ >/tmp/victim.pid; exec sleep 100000", name="victim")
    rig.wait_until("[ -s /tmp/victim.pid ]")
    rig.run("chmod 644 /tmp/victim.pid")
    pid = int(rig.run("cat /tmp/victim.pid").stdout)
    forge = ("/tmp/forge.sh", "sleep 2\nseat=$(dirname \"$XDG_RUNTIME_DIR\")\n"
             "v=$(cat /tmp/victim.pid)\nstart=$(cut -d' ' -f22 /proc/$v/stat)\n"
             "printf 'session %%s %%s 0 /usr/bin/sleep\\n' $v $start >\"$seat/forged\" && "
             "mv -f \"$seat/forged\" \"$seat/pids\"\n"
             "echo forging tried\nxsetroot -solid '%s'\nexec sleep 100000\n" % SEAT_COLOURS[0])
    rig.write_file(forge[0], forge[1].encode(), mode=0o755)
    m = seat("/bin/sh %s" % forge[0])
    try:
        first = Supervisor(rig, m)
        first.start()
        first.wait_state("s1", "running")
        rig.wait_until("grep -q 'forging tried' %s/session.log" % SEAT_DIR, timeout=20)
        rig.run("kill -9 %d" % first.pid())
        with supervisor(rig, m) as again:
            # The record is the daemon's own, the forgery having failed: the
            # seat is adopted as it runs, and no one else is signalled.
            again.wait_log(r"seat s1: adopted from an earlier run")
            again.wait_state("s1", "running")
            assert rig.run("kill -0 %d" % pid, check=False).status == 0, again.log()
            assert "left by an earlier run" not in again.log()
    finally:
        victim.stop()
        rig.run("pkill -KILL -u lab1 || true; rm -f /tmp/victim.pid")


def test_run_cleans_only_seat_directories_it_made(rig):
    # Finding 5: run removed every directory in runtime_dir at start.
    rig.run("mkdir -p %s/not-a-seat && echo keep >%s/not-a-seat/file" % (RUNTIME_DIR,
                                                                         RUNTIME_DIR))
    try:
        with supervisor(rig, seat("/bin/sh -c \"exec sleep 100000\"")) as sup:
            sup.wait_state("s1", "running")
            assert rig.run("cat %s/not-a-seat/file" % RUNTIME_DIR).stdout == "keep\n"
            assert stat(rig, SEAT_DIR + "/.seatd-lease-seat") == "root 644 regular empty file"
            assert sup.stop() == 0
            assert rig.run("ls -A %s" % RUNTIME_DIR).stdout.split() == ["not-a-seat"]
    finally:
        rig.run("rm -rf %s/not-a-seat" % RUNTIME_DIR)


@pytest.mark.parametrize("setup", ["mkdir -m 1777 /run/rt",
                                   "mkdir /run/rt && chown lab1 /run/rt",
                                   "mkdir /run/rt-real && ln -s /run/rt-real /run/rt"])
def test_an_unsafe_runtime_dir_is_refused(rig, setup):
    # Finding 5, the run-time half: a runtime_dir that others can change.
    rig.run("rm -rf /run/rt /run/rt-real; " + setup)
    m = seat("/bin/true").replace("runtime_dir = %s" % RUNTIME_DIR, "runtime_dir = /run/rt")
    try:
        with supervisor(rig, m, start=False) as sup:
            sup.start()
            deadline = time.monotonic() + 20
            while sup.running() and time.monotonic() < deadline:
                time.sleep(0.2)
            assert not sup.running(), "run went on with runtime_dir /run/rt:\n" + sup.log()
            assert sup.proc.status == 1
            assert re.search(r"runtime_dir /run/rt: .*(owned by uid|writable by others|"
                             r"symbolic link).*chown root:root", sup.log()), sup.log()
    finally:
        rig.run("rm -rf /run/rt /run/rt-real")


def test_an_ignored_sigchld_does_not_wedge_a_seat(rig):
    # Finding 12: with SIGCHLD ignored by whoever started the daemon, children
    # were reaped by the kernel, waitid failed, the pidfd's event looped and
    # the seat never restarted (nor did SIGTERM end the daemon).
    m = seat("/bin/sh -c \"exec sleep 100000\"")
    rig.write_file(CONFIG, m.encode())
    with supervisor(rig, m, start=False) as sup:
        sup.proc = rig.spawn(
            "exec python3 -c 'import os, signal, sys; "
            "signal.signal(signal.SIGCHLD, signal.SIG_IGN); os.execv(sys.argv[1], sys.argv[1:])'"
            " %s -c %s -v run" % (BIN, CONFIG), name="seatd-lease")
        sup.wait_state("s1", "running")
        x = sup.xserver_pid("s1")
        rig.run("kill -9 %d" % sup.session_pid("s1"))
        sup.wait_state("s1", "running", after=x, timeout=30)
        assert sup.stop(timeout=20) == 0


def test_seat_processes_get_umask_022_and_no_core_dumps(rig):
    # Finding 13: the X server and the session inherited the daemon's umask
    # (0000 seen) and its unlimited core size.
    m = seat("/bin/sh -c \"exec sleep 100000\"")
    rig.write_file(CONFIG, m.encode())
    with supervisor(rig, m, start=False) as sup:
        sup.proc = rig.spawn("umask 000; ulimit -c unlimited; exec %s -c %s -v run"
                             % (BIN, CONFIG), name="seatd-lease")
        sup.wait_state("s1", "running")
        for pid in (sup.xserver_pid("s1"), sup.session_pid("s1")):
            status = rig.run("cat /proc/%d/status" % pid).stdout
            assert re.search(r"^Umask:\s+0022$", status, re.M), status
            limits = rig.run("cat /proc/%d/limits" % pid).stdout
            assert re.search(r"^Max core file size\s+0\s", limits, re.M), limits


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
