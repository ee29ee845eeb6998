"""The LightDM recipes of docs/deploying.md, tried for real: a systemd guest
runs LightDM on head 1, and seatd-lease.service leases heads 2 and 3 from
LightDM's X server.

LightDM is installed in the guest only (Rig(writable_usr=True), from the .debs
that scripts/test downloads into build/vm/debs), never on the host: there it
would become a newcomer's display manager."""

import functools
import os
import time

import pytest

import reuse
import rig as rigmod
import seatd
from dm import (USERS, add_lab_users, assert_seats_gone, dm_map, session_env, session_of,
                type_text)
from seatd import (BIN, CONFIG, RUNTIME_DIR, SEAT_COLOURS, XSERVER_WRAPPER, install_units,
                   setup_users, status_json, wait_prop)

DEBS = os.path.join(rigmod.build_dir(), "vm", "debs")
GUEST_PACKAGES = "lightdm lightdm-gtk-greeter"
LIGHTDM_XAUTHORITY = "/var/run/lightdm/root/:0"
LIGHTDM_LOG = "/var/log/lightdm/lightdm.log"
# A drop-in that has LightDM's start find :0 taken (test_display_manager_seats).
LIGHTDM_DROPIN = "/run/systemd/system/lightdm.service.d"
TAKE_X0 = "/run/rig-take-x0"
# The recipe's snippet for the primary X server.
DONT_VT_SWITCH = "/etc/X11/xorg.conf.d/90-seatd-lease.conf"
DONT_VT_SWITCH_TEXT = 'Section "ServerFlags"\n\tOption "DontVTSwitch" "true"\nEndSection\n'
# XDMCP offers the display manager the X server's addresses, never a loopback
# one: a lab PC has its network card's, the rig's guest this one.
GUEST_ADDRESS = "10.0.2.15"
# Pictures in this module get 60 s, as they always had.
assert_head = functools.partial(seatd.assert_head, timeout=60)
# Last of the modules on the shared systemd guest (reuse.systemd_guest).
SYSTEMD_GUEST = 3


def install_lightdm(r):
    installed = r.run("dpkg-query -W -f='${Status}\\n' %s" % GUEST_PACKAGES, check=False)
    if installed.stdout.count("install ok installed") == len(GUEST_PACKAGES.split()):
        return
    assert os.path.isdir(DEBS), "no %s: scripts/test downloads LightDM's .debs there" % DEBS
    # The package's own start, with its default configuration, would race ours.
    r.write_file("/usr/sbin/policy-rc.d", b"#!/bin/sh\nexit 101\n", mode=0o755)
    # man-db's trigger alone takes 80 s under TCG.
    r.run("rm -f /var/lib/man-db/auto-update")
    r.run("DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "
          "--no-download -o Dir::Cache::archives=%s %s" % (DEBS, GUEST_PACKAGES), timeout=900)


@pytest.fixture(scope="module")
def rig(request):
    failed = request.session.testsfailed
    with reuse.systemd_guest("test_lightdm", lambda: request.session.testsfailed == failed,
                             hand_on=False) as r:
        # LightDM starts the X server on head 1 itself.
        if r.xorg_running():
            r.xorg_server.stop()
            r.wait_until("! pgrep -x Xorg >/dev/null", timeout=20)
        install_lightdm(r)
        # The rig's heads at 1024x768 without acceleration; the recipe's
        # snippet goes beside it, into xorg.conf.d. Xorg keeps one
        # ServerFlags section (on the rig, xorg.conf's over the snippet's), so
        # xorg.conf has none and LightDM's X server takes the guest's second
        # card as a GPU screen: no seat here is on it.
        r.write_file("/etc/X11/xorg.conf", rigmod.primary_xorg_conf(r.heads).encode())
        r.run("mkdir -p /etc/X11/xorg.conf.d /etc/lightdm/lightdm.conf.d /etc/seatd-lease")
        r.write_file(DONT_VT_SWITCH, DONT_VT_SWITCH_TEXT.encode())
        # A user name to type, not a list to click; the session paints the
        # user's colour, says where it runs, and ends with its X connection.
        r.write_file("/etc/lightdm/lightdm.conf.d/50-rig.conf",
                     b"[Seat:*]\ngreeter-hide-users=true\nuser-session=rig-paint\n")
        add_lab_users(r)
        # The seats' X servers run as these.
        setup_users(r, ["lab1", "lab2"])
        install_units(r)
        # LightDM's and its X servers' logs, with a failure's pictures.
        r.add_log("/var/log/lightdm/*.log")
        restart_lightdm(r)
        yield r


def restart_lightdm(r):
    """LightDM, started again on the configuration of this moment."""
    r.run("rm -f %s" % LIGHTDM_XAUTHORITY)
    r.run("systemctl restart lightdm", timeout=60)
    r.wait_until("[ -s %s ] && DISPLAY=:0 XAUTHORITY=%s xdpyinfo >/dev/null 2>&1"
                 % (LIGHTDM_XAUTHORITY, LIGHTDM_XAUTHORITY), timeout=60)
    wait_greeter(r, ":0")


def greeters(r):
    """The DISPLAY of every greeter that runs."""
    # A process that is starting or ending can hold up a read of its environ.
    out = r.run("for p in $(pgrep -f lightdm-gtk-greeter); do "
                "timeout 2 cat /proc/$p/environ | tr '\\0' '\\n' | grep '^DISPLAY='; done; true"
                ).stdout
    return {line.partition("=")[2] for line in out.split()}


def wait_greeter(r, display, timeout=90):
    deadline = time.monotonic() + timeout
    while not any(d.endswith(display) for d in greeters(r)):
        assert time.monotonic() < deadline, "no greeter on %s in %ds: %s\n%s" % (
            display, timeout, greeters(r), lightdm_log(r)[-3000:])
        time.sleep(0.5)


def lightdm_log(r):
    return r.run("cat %s" % LIGHTDM_LOG, check=False).stdout


def assert_greeter_shown(r, head):
    """The greeter's login box on head's picture: black around a white box,
    a picture no seat session paints."""
    deadline = time.monotonic() + 30
    while True:
        picture = r.screendump(head)
        box = picture.share((255, 255, 255))
        if 0.005 < box < 0.5 and picture.share((0, 0, 0)) > 0.5:
            return
        assert time.monotonic() < deadline, "head %d shows no greeter (white %.3f, black %.3f)" % (
            head, box, picture.share((0, 0, 0)))
        time.sleep(0.5)


def active_vt(r):
    return r.run("cat /sys/class/tty/tty0/active").stdout.strip()


def lab_map(seats, extra=""):
    """The recipe's seat map: leased from LightDM's X server on :0; no
    logind seats, on which LightDM would start X servers of its own."""
    lines = ["[general]", "lessor = x11", "display = :0", "xauthority = %s" % LIGHTDM_XAUTHORITY,
             "logind = no", "runtime_dir = %s" % RUNTIME_DIR, "", "[seat:*]", "mode = 1024x768", extra]
    for name, head, user, more in seats:
        lines += ["", "[seat:%s]" % name, "outputs = Virtual-%d" % head,
                  "inputs = path:%s path:%s" % (rigmod.keyboard_id_path(head),
                                               rigmod.pointer_id_path(head)),
                  "user = %s" % user, more]
    return "\n".join(lines) + "\n"


def start_daemon(r, text, seats):
    r.write_file(CONFIG, text.encode())
    r.run("%s check" % BIN)
    r.run("systemctl start seatd-lease.service", timeout=90)
    wait_prop(r, "seatd-lease", "StatusText", r"^%d/%d seats running$" % (seats, seats))


def stop_daemon(r):
    r.run("systemctl stop seatd-lease.service", timeout=60)
    assert r.run("ls -A %s" % RUNTIME_DIR).stdout == ""


def test_lightdm_lab(rig):
    """The LightDM lab: LightDM's greeter on head 1, seats on heads 2 and 3;
    a VT switch on the primary's keyboard blanks no seat; the seats follow
    LightDM's restarts, and start with it as at boot."""
    paint = "session = /bin/sh -c \"xsetroot -solid '%s' && exec sleep 100000\""
    start_daemon(rig, lab_map([("lab-2", 2, "lab1", paint % SEAT_COLOURS[0]),
                               ("lab-3", 3, "lab2", paint % SEAT_COLOURS[1])]), 2)
    try:
        assert_head(rig, 2, SEAT_COLOURS[0])
        assert_head(rig, 3, SEAT_COLOURS[1])
        assert_greeter_shown(rig, 1)
        assert active_vt(rig) == "tty7"
        # logind = no: logind knows no seat of seatd-lease's, nor a session
        # of its (so LightDM starts nothing there).
        assert rig.run("loginctl --no-legend list-seats").stdout.split() == ["seat0"]
        # (The directory also holds each session's FIFOs: regular files only.)
        services = rig.run("find /run/systemd/sessions -type f -exec grep -h ^SERVICE= {} + "
                           "|| true").stdout
        assert "SERVICE=seatd-lease" not in services, services
        # With DontVTSwitch, Ctrl+Alt+F2 is only a key.
        rig.send_key(1, "ctrl", "alt", "f2")
        time.sleep(2)
        assert active_vt(rig) == "tty7"
        assert_head(rig, 2, SEAT_COLOURS[0], timeout=1)
        assert_head(rig, 3, SEAT_COLOURS[1], timeout=1)

        # Why the recipe needs it: without, the same keys take the console
        # to tty2, which takes every head, the leased ones too. LightDM's
        # restart also ends the leases: the seats come back by themselves.
        rig.run("rm %s" % DONT_VT_SWITCH)
        before = {name: s["xserver_pid"] for name, s in status_json(rig).items()}
        restart_lightdm(rig)
        deadline = time.monotonic() + 90
        while not all(s["state"] == "running" and s["xserver_pid"] != before[name]
                      for name, s in status_json(rig).items()):
            assert time.monotonic() < deadline, status_json(rig)
            time.sleep(0.5)
        assert_head(rig, 2, SEAT_COLOURS[0])
        assert_head(rig, 3, SEAT_COLOURS[1])
        rig.send_key(1, "ctrl", "alt", "f2")
        rig.wait_until("grep -qx tty2 /sys/class/tty/tty0/active", timeout=10)
        for head, colour in ((2, SEAT_COLOURS[0]), (3, SEAT_COLOURS[1])):
            picture = rig.screendump(head)
            deadline = time.monotonic() + 10
            while picture.share(rigmod.colour(colour)) > 0.1 and time.monotonic() < deadline:
                time.sleep(0.3)
                picture = rig.screendump(head)
            assert picture.share(rigmod.colour(colour)) < 0.1, "head %d still shows its seat" % head
        rig.write_file(DONT_VT_SWITCH, DONT_VT_SWITCH_TEXT.encode())

        # As at boot: both started at once, seatd-lease ordered after the
        # display manager but before its X server takes connections.
        rig.run("systemctl stop seatd-lease.service lightdm.service", timeout=60)
        rig.run("rm -f %s" % LIGHTDM_XAUTHORITY)
        rig.run("systemctl start lightdm.service seatd-lease.service", timeout=90)
        wait_prop(rig, "seatd-lease", "StatusText", r"^2/2 seats running$", timeout=90)
        assert_head(rig, 2, SEAT_COLOURS[0])
        assert_head(rig, 3, SEAT_COLOURS[1])
        assert_greeter_shown(rig, 1)
    finally:
        rig.write_file(DONT_VT_SWITCH, DONT_VT_SWITCH_TEXT.encode())
        stop_daemon(rig)
        restart_lightdm(rig)
    assert active_vt(rig) == "tty7"


def log_in(r, head, user):
    """Type user and password into the greeter on head's keyboard."""
    prompts = lightdm_log(r).count("Prompt greeter")
    type_text(r, head, user + "\n")
    # The password prompt comes once PAM has the name.
    deadline = time.monotonic() + 30
    while lightdm_log(r).count("Prompt greeter") <= prompts:
        assert time.monotonic() < deadline, "no password prompt for %s:\n%s" % (
            user, lightdm_log(r)[-3000:])
        time.sleep(0.3)
    time.sleep(1)
    type_text(r, head, user + "pw\n")


def test_xdmcp_login_on_every_seat(rig):
    """Each seat's X server asks the local LightDM for a greeter through
    XDMCP; a user logs in on each seat by typing into that seat's keyboard."""
    rig.run("modprobe dummy && ip link add rig0 type dummy && ip addr add %s/24 dev rig0 && "
            "ip link set rig0 up" % GUEST_ADDRESS)
    rig.write_file("/etc/lightdm/lightdm.conf.d/60-xdmcp.conf",
                   b"[XDMCPServer]\nenabled=true\nlisten-address=127.0.0.1\n")
    restart_lightdm(rig)
    start_daemon(rig, lab_map([("lab-2", 2, "lab1", ""), ("lab-3", 3, "lab2", "")],
                              extra="xserver_args = -query 127.0.0.1"), 2)
    try:
        displays = {name: s["display"] for name, s in status_json(rig).items()}
        for seat, head in (("lab-2", 2), ("lab-3", 3)):
            wait_greeter(rig, displays[seat])
            assert_greeter_shown(rig, head)
        xserver = status_json(rig)["lab-2"]["xserver_pid"]

        log_in(rig, 2, "ada")
        assert_head(rig, 2, USERS["ada"])
        env = session_env(rig, "ada")
        assert env["USER"] == "ada" and env["DISPLAY"].endswith(displays["lab-2"]), env
        # What was typed on head 2 reached only lab-2's greeter.
        assert_greeter_shown(rig, 3)
        assert session_env(rig, "bob") == {}

        log_in(rig, 3, "bob")
        assert_head(rig, 3, USERS["bob"])
        assert session_env(rig, "bob")["DISPLAY"].endswith(displays["lab-3"])
        assert_head(rig, 2, USERS["ada"], timeout=1)

        # Logging out brings the greeter back on the same X server.
        rig.run("pkill -u ada -x xev")
        wait_greeter(rig, displays["lab-2"])
        assert_greeter_shown(rig, 2)
        assert status_json(rig)["lab-2"]["xserver_pid"] == xserver
        assert_head(rig, 3, USERS["bob"], timeout=1)
    finally:
        stop_daemon(rig)
    # The seats' X servers are gone, and with them bob's session.
    rig.wait_until("! pgrep -u bob -x xev", timeout=30)


def seat_xserver(r, seat):
    """(pid, display) of the X server running for logind seat seat-NAME, or
    None."""
    out = r.run("ps -eo pid=,args= | grep -- '-seat seat-%s' | grep -v grep || true"
                % seat).stdout
    for line in out.splitlines():
        words = line.split()
        for w in words[1:]:
            if w.startswith(":") and w[1:].isdigit() and "-masterfd" in words:
                return int(words[0]), w
    return None


def wait_seat0_xserver(r, timeout=90):
    """(display, -auth file) of the X server LightDM runs on seat0."""
    deadline = time.monotonic() + timeout
    while True:
        out = r.run("ps -eo args= | grep -- '-seat [s]eat0 ' || true").stdout.split()
        if ":" in "".join(out) and "-auth" in out:
            display = next(w for w in out if w.startswith(":") and w[1:].isdigit())
            auth = out[out.index("-auth") + 1]
            if r.run("DISPLAY=%s XAUTHORITY=%s xdpyinfo >/dev/null 2>&1" % (display, auth),
                     check=False).status == 0:
                return display, auth
        assert time.monotonic() < deadline, "no X server on seat0 in %ds:\n%s" % (
            timeout, lightdm_log(r)[-3000:])
        time.sleep(0.5)


def wait_seat_xserver(r, seat, timeout=90):
    deadline = time.monotonic() + timeout
    while seat_xserver(r, seat) is None:
        assert time.monotonic() < deadline, "no X server for seat-%s in %ds:\n%s\n%s" % (
            seat, timeout, r.run("ps -eo pid,args | grep -i xorg; cat /var/log/lightdm/x-*.log",
                                 check=False).stdout[-3000:], lightdm_log(r)[-3000:])
        time.sleep(0.5)
    return seat_xserver(r, seat)


def test_display_manager_seats(rig):
    """LightDM runs its own greeter on each seat (session = display-manager):
    logind shows the seats, LightDM starts `seatd-lease xserver` for each,
    which runs Xorg on the seat's lease; a login on a seat is a local,
    active session on that seat."""
    conf = "/etc/lightdm/lightdm.conf.d/70-seatd-lease.conf"
    # Both forms of the X server command: the command's (lab-3), and the
    # one program that SDDM's ServerPath needs (lab-2).
    rig.write_file(conf, ("[Seat:seat-lab-3]\nxserver-command=%s xserver\n"
                          "[Seat:seat-lab-2]\nxserver-command=%s\n"
                          % (BIN, XSERVER_WRAPPER)).encode())
    restart_lightdm(rig)
    start_daemon(rig, dm_map([("lab-2", 2), ("lab-3", 3)]), 2)
    blocker = None
    try:
        xservers = {}
        for seat, head in (("lab-2", 2), ("lab-3", 3)):
            xservers[seat] = wait_seat_xserver(rig, seat)
            wait_greeter(rig, xservers[seat][1])
            assert_greeter_shown(rig, head)
        st = status_json(rig)
        for seat in ("lab-2", "lab-3"):
            assert st[seat]["state"] == "handed-out", st[seat]
            assert st[seat]["xserver_pid"] == xservers[seat][0], (st[seat], xservers)
        assert_greeter_shown(rig, 1)
        # A second X server for a seat whose lease is held: refused, in a
        # line that names the holder.
        second = rig.run("%s xserver :9 -seat seat-lab-2 -nolisten tcp" % BIN, check=False)
        assert second.status == 1, second
        assert second.stderr == ("seatd-lease xserver: seat lab-2: seat lab-2's lease is held "
                                 "by pid %d already; it is handed out again once that process "
                                 "has ended\n" % xservers["lab-2"][0]), second

        # Typed on head 3's keyboard: bob logs in on lab-3, and only there.
        log_in(rig, 3, "bob")
        assert_head(rig, 3, USERS["bob"])
        env = session_env(rig, "bob")
        assert env["DISPLAY"].endswith(xservers["lab-3"][1]), env
        props = session_of(rig, "bob")
        assert (props.get("Seat"), props.get("Active"), props.get("Remote")) == (
            "seat-lab-3", "yes", "no"), props
        assert_greeter_shown(rig, 2)

        # ada on lab-2, from head 2's keyboard: her session cannot reach
        # bob's X server, nor read his cookie.
        log_in(rig, 2, "ada")
        assert_head(rig, 2, USERS["ada"])
        ada = session_env(rig, "ada")
        assert ada["DISPLAY"].endswith(xservers["lab-2"][1]), ada
        assert session_of(rig, "ada").get("Seat") == "seat-lab-2"
        as_ada = "runuser -u ada -- env DISPLAY=%s XAUTHORITY=%s xdpyinfo >/dev/null 2>&1"
        assert rig.run(as_ada % (ada["DISPLAY"], ada["XAUTHORITY"]), check=False).status == 0
        assert rig.run(as_ada % (env["DISPLAY"], ada["XAUTHORITY"]), check=False).status != 0
        assert rig.run("runuser -u ada -- cat %s" % env["XAUTHORITY"], check=False).status != 0

        # A logout brings the greeter back on lab-3; lab-2 never noticed.
        rig.run("pkill -u bob -x xev")
        rig.wait_until("! pgrep -u bob -x xev", timeout=30)
        again = wait_seat_xserver(rig, "lab-3")
        wait_greeter(rig, again[1])
        assert_greeter_shown(rig, 3)
        assert seat_xserver(rig, "lab-2") == xservers["lab-2"]
        assert_head(rig, 2, USERS["ada"], timeout=1)

        # LightDM's restart brings every seat's greeter back. LightDM
        # numbers its X servers in the order it starts them, so seat0's is
        # not always :0; here a lock file (anyone may write one in /tmp),
        # planted once the old :0 has gone (it removes its own), takes :0
        # outright, and seatd-lease follows seat0 wherever it is.
        blocker = rig.run("setsid sleep 600 </dev/null >/dev/null 2>&1 & echo $!").stdout.strip()
        rig.write_file(TAKE_X0, ("#!/bin/sh\nprintf '%%10s\\n' %s >/tmp/.X0-lock\n"
                                 % blocker).encode(), mode=0o755)
        rig.run("mkdir -p %s && printf '[Service]\\nExecStartPre=%s\\n' >%s/90-rig.conf && "
                "systemctl daemon-reload" % (LIGHTDM_DROPIN, TAKE_X0, LIGHTDM_DROPIN))
        rig.run("systemctl restart lightdm", timeout=60)
        primary = wait_seat0_xserver(rig)
        assert primary[0] != ":0", primary
        wait_greeter(rig, primary[0])
        assert_greeter_shown(rig, 1)
        for seat, head in (("lab-2", 2), ("lab-3", 3)):
            x = wait_seat_xserver(rig, seat)
            wait_greeter(rig, x[1])
            assert_greeter_shown(rig, head)
            assert x[1] != primary[0], (x, primary)
        st = status_json(rig)
        for seat in ("lab-2", "lab-3"):
            assert st[seat]["state"] == "handed-out", st[seat]
        journal = rig.run("journalctl -u seatd-lease -o cat --no-pager").stdout
        assert "connected to X server %s (seat0's)" % primary[0] in journal, journal[-3000:]

        # A reload without lab-3 takes LightDM's seat-lab-3 away (its X
        # server ends, logind drops the seat) and gives head 3 back to the
        # primary; lab-2's X server goes on.
        lab2 = seat_xserver(rig, "lab-2")
        rig.write_file(CONFIG, dm_map([("lab-2", 2)]).encode())
        rig.run("systemctl reload seatd-lease.service", timeout=60)
        rig.wait_until("! pgrep -f -- '-seat [s]eat-lab-3'", timeout=60)
        deadline = time.monotonic() + 30
        while "seat-lab-3" in rig.run("loginctl --no-legend list-seats").stdout:
            assert time.monotonic() < deadline, rig.run("loginctl list-seats").stdout
            time.sleep(0.5)
        assert "lab-3" not in status_json(rig)
        assert seat_xserver(rig, "lab-2") == lab2
        assert_greeter_shown(rig, 2)
        xrandr = "DISPLAY=%s XAUTHORITY=%s xrandr" % primary
        rig.wait_until("%s | grep -q 'Virtual-3 connected'" % xrandr, timeout=30)
        assert "Virtual-2 disconnected" in rig.run(xrandr).stdout

        # systemctl restart: a display manager's seat is not kept (its X
        # server ends with the earlier run; LightDM starts another), the log
        # says why, and it comes back handed out, its directory made anew.
        since = rig.run("date +%s").stdout.strip()
        rig.run("systemctl restart seatd-lease.service", timeout=90)
        wait_prop(rig, "seatd-lease", "StatusText", r"^1/1 seats running$")
        x = wait_seat_xserver(rig, "lab-2")
        assert x != lab2, (x, lab2)
        wait_greeter(rig, x[1])
        assert_greeter_shown(rig, 2)
        assert status_json(rig)["lab-2"]["state"] == "handed-out"
        journal = rig.run("journalctl -u seatd-lease -o cat --no-pager --since @%s"
                          % since).stdout
        assert ("seat lab-2: not adopted from an earlier run: a display manager's seat keeps "
                "no record") in journal, journal[-3000:]
        for fault in ("cannot create", "cannot remove", "cannot unmount"):
            assert fault not in journal, journal[-3000:]
    finally:
        stop_daemon(rig)
        rig.run("rm -f %s" % conf)
        if blocker:
            rig.run("kill %s; rm -f /tmp/.X0-lock %s; rm -rf %s; systemctl daemon-reload"
                    % (blocker, TAKE_X0, LIGHTDM_DROPIN), check=False)
    # LightDM's seats go with seatd-lease's; the outputs are the primary's again.
    assert_seats_gone(rig)
    display, auth = wait_seat0_xserver(rig)
    outputs = rig.run("DISPLAY=%s XAUTHORITY=%s xrandr" % (display, auth)).stdout
    for head in (2, 3):
        assert "Virtual-%d connected" % head in outputs, outputs
    # With no daemon, the X server command says so, and exits 3.
    alone = rig.run("%s xserver :9 -seat seat-lab-2" % BIN, check=False)
    assert alone.status == 3 and "no seatd-lease daemon answers" in alone.stderr, alone
    assert len(alone.stderr.splitlines()) == 1, alone
    restart_lightdm(rig)
