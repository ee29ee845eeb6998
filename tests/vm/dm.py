"""What the display managers' tests share (test_lightdm.py, test_sddm.py):
the seat map of display managers' seats, lab users who log in through a
greeter and the session that paints their colour, keys typed on a head, and
what a login became."""

import time

import rig as rigmod
from seatd import RUNTIME_DIR

# Lab users who log in through the greeters, with the colour their session paints.
USERS = {"ada": "#8040c0", "bob": "#c08020"}

# The session: it says where it runs, paints the user's colour, and ends
# with its X connection (pkill xev is a logout).
PAINT = (b'#!/bin/sh\nenv >"$HOME/session.env"\n'
         b'xsetroot -solid "$(cat "$HOME/colour")"\nexec xev -root >/dev/null\n')
PAINT_DESKTOP = (b"[Desktop Entry]\nName=Rig paint\nExec=/usr/local/bin/rig-paint\n"
                 b"Type=Application\n")


def add_lab_users(r, sessions_dir="/usr/share/xsessions"):
    """USERS, each with password NAMEpw and its colour, and the rig-paint
    session in sessions_dir."""
    r.write_file("/usr/local/bin/rig-paint", PAINT, mode=0o755)
    r.run("mkdir -p %s" % sessions_dir)
    r.write_file(sessions_dir + "/rig-paint.desktop", PAINT_DESKTOP)
    for user, colour in USERS.items():
        r.run("id {0} >/dev/null 2>&1 || useradd -m -d /tmp/home/{0} -s /bin/sh {0}; "
              "echo {0}:{0}pw | chpasswd && echo '{1}' >/tmp/home/{0}/colour"
              .format(user, colour))


def dm_map(seats):
    """Display managers' seats, (name, head) each: leased from the X server
    the display manager runs on seat0, whatever its number (display =
    seat0), their X servers started by the display manager through
    `seatd-lease xserver` or seatd-lease-xserver."""
    lines = ["[general]", "lessor = x11", "display = seat0", "runtime_dir = %s" % RUNTIME_DIR,
             "", "[seat:*]", "mode = 1024x768", "session = display-manager"]
    for name, head in seats:
        lines += ["", "[seat:%s]" % name, "outputs = Virtual-%d" % head,
                  "inputs = path:%s path:%s" % (rigmod.keyboard_id_path(head),
                                               rigmod.pointer_id_path(head))]
    return "\n".join(lines) + "\n"


def type_text(r, head, text):
    keys = {"\n": "ret", "\t": "tab"}
    for ch in text:
        r.send_key(head, keys.get(ch, ch))


def session_env(r, user):
    """The environment user's rig-paint session started with."""
    out = r.run("cat /tmp/home/%s/session.env" % user, check=False).stdout
    return dict(line.split("=", 1) for line in out.splitlines() if "=" in line)


def session_of(r, user):
    """loginctl show-session's properties of user's graphical session."""
    out = r.run("for s in $(loginctl list-sessions --no-legend | awk '$3 == \"%s\" {print $1}');"
                " do loginctl show-session $s; echo; done" % user).stdout
    for block in out.split("\n\n"):
        props = dict(line.split("=", 1) for line in block.splitlines() if "=" in line)
        if props.get("Type") == "x11":
            return props
    return {}


def assert_seats_gone(r):
    """Once seatd-lease has stopped, the display manager's seats have gone
    with it: no X server on a lease, no logind seat but seat0, no rules."""
    # ([s]: the pattern must not match the shell that runs it.)
    r.wait_until("! pgrep -f -- '-seat [s]eat-lab'", timeout=60)
    deadline = time.monotonic() + 30
    while r.run("loginctl --no-legend list-seats").stdout.split() != ["seat0"]:
        assert time.monotonic() < deadline, r.run("loginctl list-seats").stdout
        time.sleep(0.5)
    assert r.run("ls -A /run/udev/rules.d 2>/dev/null | grep seatd-lease || true").stdout == ""
