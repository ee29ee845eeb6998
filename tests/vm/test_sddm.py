"""SDDM's greeter on every seat given to it (session = display-manager), as
LightDM's in test_lightdm.py: a systemd guest of its own installs SDDM
(Debian 12's 0.19) from the .debs that scripts/test downloads, SDDM runs
the X server on head 1 (seat0) and, through seatd-lease-xserver (its
ServerPath, one path), one on each seat's lease; seatd-lease leases heads 2
and 3 from seat0's X server wherever SDDM numbers it (display = seat0).

The greeter's theme is the rig's own (a user name, Tab, a password, Enter;
a picture no session paints): SDDM's daemon, its greeter program, its PAM
services and its X server handling are Debian's, unchanged."""

import functools
import time

import pytest

import rig as rigmod
import seatd
from dm import (USERS, add_lab_users, assert_seats_gone, dm_map, session_env, session_of,
                type_text)
from seatd import (BIN, CONFIG, XSERVER_WRAPPER, install_guest_debs, install_units, status_json,
                   wait_prop)

SDDM_CONF = "/etc/sddm.conf.d/50-rig.conf"
THEMES = "/etc/rig-sddm-themes"
XSESSIONS = "/etc/rig-xsessions"
# The rig theme's background: a picture no seat session paints.
GREETER = "#206040"
THEME = b"""import QtQuick 2.0

Rectangle {
    width: 1024; height: 768
    color: "%s"
    Rectangle {
        x: 312; y: 300; width: 400; height: 110
        color: "white"
        TextInput {
            id: user
            x: 10; y: 10; width: 380; height: 40
            font.pixelSize: 24
            focus: true
            KeyNavigation.tab: password
            onAccepted: password.forceActiveFocus()
        }
        TextInput {
            id: password
            x: 10; y: 60; width: 380; height: 40
            font.pixelSize: 24
            echoMode: TextInput.Password
            onAccepted: sddm.login(user.text, password.text, 0)
        }
    }
    Connections {
        target: sddm
        function onLoginFailed() { password.text = ""; user.text = ""; user.forceActiveFocus() }
    }
}
""" % GREETER.encode()
METADATA = (b"[SddmGreeterTheme]\nName=Rig\nType=sddm-theme\nMainScript=Main.qml\n"
            b"Theme-Id=rig\nTheme-API=2.0\n")
# Pictures get 60 s, as test_lightdm's.
assert_head = functools.partial(seatd.assert_head, timeout=60)


def sddm_conf():
    return ("[General]\nInputMethod=\n"
            "[Theme]\nThemeDir=%s\nCurrent=rig\n"
            "[X11]\nServerPath=%s\nSessionDir=%s\n"
            # Only the rig's session, at index 0: no Wayland session is offered.
            "[Wayland]\nSessionDir=/nonexistent\n"
            % (THEMES, XSERVER_WRAPPER, XSESSIONS)).encode()


@pytest.fixture(scope="module")
def rig():
    with rigmod.Rig("test_sddm", heads=3, xorg=False, init="systemd", writable_usr=True) as r:
        r.run("systemctl start dbus.service systemd-logind.service", timeout=90)
        install_guest_debs(r, "sddm", "SDDM")
        r.write_file("/etc/X11/xorg.conf", rigmod.primary_xorg_conf(r.heads).encode())
        r.run("mkdir -p /etc/sddm.conf.d %s/rig /etc/seatd-lease" % THEMES)
        r.write_file(THEMES + "/rig/Main.qml", THEME)
        r.write_file(THEMES + "/rig/metadata.desktop", METADATA)
        r.write_file(SDDM_CONF, sddm_conf())
        add_lab_users(r, XSESSIONS)
        install_units(r)
        r.add_log("/var/log/Xorg.*.log")
        start_sddm(r)
        yield r


def sddm_log(r):
    return r.run("journalctl -b -u sddm --no-pager -o cat", check=False).stdout


def greeters(r):
    """{XDG_SEAT: DISPLAY} of every greeter that runs."""
    out = r.run("for p in $(pgrep -x sddm-greeter); do "
                "timeout 2 cat /proc/$p/environ | tr '\\0' '\\n' | "
                "grep -E '^(DISPLAY|XDG_SEAT)=' | sort | tr '\\n' ' '; echo; done; true").stdout
    found = {}
    for line in out.splitlines():
        env = dict(w.split("=", 1) for w in line.split() if "=" in w)
        if "DISPLAY" in env and "XDG_SEAT" in env:
            found[env["XDG_SEAT"]] = env["DISPLAY"]
    return found


def wait_greeter(r, seat, timeout=120, not_on=None):
    """The display of seat's greeter (not not_on: a new one)."""
    deadline = time.monotonic() + timeout
    while greeters(r).get(seat) in (None, not_on):
        assert time.monotonic() < deadline, "no greeter on %s in %ds: %s\n%s" % (
            seat, timeout, greeters(r), sddm_log(r)[-3000:])
        time.sleep(0.5)
    return greeters(r)[seat]


def assert_greeter_shown(r, head):
    deadline = time.monotonic() + 60
    while True:
        picture = r.screendump(head)
        box = picture.share((255, 255, 255))
        if 0.02 < box < 0.2 and picture.share(rigmod.colour(GREETER)) > 0.7:
            return
        assert time.monotonic() < deadline, "head %d shows no greeter (white %.3f, %s)" % (
            head, box, picture.dominant())
        time.sleep(0.5)


def start_sddm(r, restart=False):
    what = "restart" if restart else "start"
    began = time.monotonic()
    out = r.run("timeout 170 systemctl %s sddm" % what, timeout=180, check=False)
    took = time.monotonic() - began
    print("systemctl %s sddm: %.1f s" % (what, took))
    assert out.status == 0 and took < 60, "systemctl %s sddm: status %d in %.0f s %s\n%s" % (
        what, out.status, took, out.stderr, r.run(
            "journalctl -b --no-pager -o short-monotonic -u sddm -u seatd-lease -n 150",
            check=False).stdout)
    wait_greeter(r, "seat0")
    assert_greeter_shown(r, 1)


def xserver_of(r, seat):
    """The pid of the X server that runs on seat (seat-NAME) on a lease."""
    out = r.run("pgrep -f -- '-seat [s]%s( |$)' || true" % seat[1:]).stdout.split()
    for pid in out:
        args = r.run("tr '\\0' ' ' </proc/%s/cmdline" % pid, check=False).stdout.split()
        if "-masterfd" in args and "-displayfd" in args:
            return int(pid)
    return None


def seat0_xserver(r):
    """(display, -auth file) of SDDM's X server on seat0."""
    display = wait_greeter(r, "seat0")
    args = r.run("ps -eo args= | grep -- '-seat [s]eat0' || true").stdout.split()
    return display, args[args.index("-auth") + 1]


def log_in(r, head, user):
    type_text(r, head, "%s\t%spw\n" % (user, user))


def test_sddm_greeter_on_every_seat(rig):
    """SDDM runs its greeter on each seat by itself; a login typed on a
    seat's keyboard is an active local session on that seat only; a logout
    brings the greeter back there alone; SDDM's restart brings every greeter
    back; stopping seatd-lease leaves nothing."""
    rig.write_file(CONFIG, dm_map([("lab-2", 2), ("lab-3", 3)]).encode())
    rig.run("%s check" % BIN)
    rig.run("systemctl start seatd-lease.service", timeout=90)
    wait_prop(rig, "seatd-lease", "StatusText", r"^2/2 seats running$")
    try:
        displays = {}
        for seat, head in (("seat-lab-2", 2), ("seat-lab-3", 3)):
            displays[seat] = wait_greeter(rig, seat)
            assert_greeter_shown(rig, head)
        st = status_json(rig)
        for name in ("lab-2", "lab-3"):
            assert st[name]["state"] == "handed-out", st[name]
            assert st[name]["xserver_pid"] == xserver_of(rig, "seat-" + name), st[name]
        assert_greeter_shown(rig, 1)

        # bob on lab-3, typed on head 3's keyboard: there, and only there.
        log_in(rig, 3, "bob")
        assert_head(rig, 3, USERS["bob"])
        bob = session_env(rig, "bob")
        assert bob["DISPLAY"] == displays["seat-lab-3"], (bob, displays)
        props = session_of(rig, "bob")
        assert (props.get("Seat"), props.get("Active"), props.get("Remote")) == (
            "seat-lab-3", "yes", "no"), props
        assert "seat-lab-3" not in greeters(rig), greeters(rig)
        assert_greeter_shown(rig, 2)
        assert_greeter_shown(rig, 1)

        # ada on lab-2: her session cannot reach bob's X server, nor read
        # his cookie.
        log_in(rig, 2, "ada")
        assert_head(rig, 2, USERS["ada"])
        ada = session_env(rig, "ada")
        assert ada["DISPLAY"] == displays["seat-lab-2"], (ada, displays)
        assert session_of(rig, "ada").get("Seat") == "seat-lab-2"
        as_ada = "runuser -u ada -- env DISPLAY=%s XAUTHORITY=%s xdpyinfo >/dev/null 2>&1"
        assert rig.run(as_ada % (ada["DISPLAY"], ada["XAUTHORITY"]), check=False).status == 0
        assert rig.run(as_ada % (bob["DISPLAY"], ada["XAUTHORITY"]), check=False).status != 0
        assert rig.run("runuser -u ada -- cat %s" % bob["XAUTHORITY"], check=False).status != 0

        # bob's logout: the greeter again on lab-3; lab-2 never noticed.
        lab2 = xserver_of(rig, "seat-lab-2")
        rig.run("pkill -u bob -x xev")
        rig.wait_until("! pgrep -u bob -x xev", timeout=30)
        wait_greeter(rig, "seat-lab-3", not_on=None)
        assert_greeter_shown(rig, 3)
        assert xserver_of(rig, "seat-lab-2") == lab2
        assert_head(rig, 2, USERS["ada"], timeout=1)
        rig.run("pkill -u ada -x xev")
        rig.wait_until("! pgrep -u ada -x xev", timeout=30)
        wait_greeter(rig, "seat-lab-2")
        assert_greeter_shown(rig, 2)

        # SDDM's restart: every greeter back, the seats on the new seat0
        # X server's leases, handed out again.
        start_sddm(rig, restart=True)
        for seat, head in (("seat-lab-2", 2), ("seat-lab-3", 3)):
            wait_greeter(rig, seat)
            assert_greeter_shown(rig, head)
        deadline = time.monotonic() + 60
        while not all(s["state"] == "handed-out" for s in status_json(rig).values()):
            assert time.monotonic() < deadline, status_json(rig)
            time.sleep(0.5)
    finally:
        rig.run("systemctl stop seatd-lease.service", timeout=60)
    # SDDM's seats go with seatd-lease's; the outputs are seat0's X
    # server's again, and its greeter goes on.
    assert_seats_gone(rig)
    display, auth = seat0_xserver(rig)
    outputs = rig.run("DISPLAY=%s XAUTHORITY=%s xrandr" % (display, auth)).stdout
    for head in (2, 3):
        assert "Virtual-%d connected" % head in outputs, outputs
    assert_greeter_shown(rig, 1)
