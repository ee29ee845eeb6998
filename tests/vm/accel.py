"""Which accelerator the rig's QEMU uses: KVM where a guest really runs under
it, TCG everywhere else.

Opening /dev/kvm proves nothing: on some machines it opens, yet a guest under
`-accel kvm` never runs (QEMU spins, the serial console stays empty, nothing
is printed). So the choice is made by a probe: a one-sector guest that writes
a word to its serial port, booted under KVM with a short deadline. A guest
that does not answer in time, or a QEMU that fails, means TCG.

SEATD_LEASE_RIG_ACCEL=tcg or =kvm forces the choice; forcing kvm where the
probe fails is an error that says why, never a hang.

The choice is made once per process (choice()); decide() is the pure logic,
with the device and the probe passed in, so its tests run on every machine.
"""

import collections
import ctypes
import os
import select
import shutil
import signal
import subprocess
import tempfile
import time

ENV = "SEATD_LEASE_RIG_ACCEL"
DEVICE = "/dev/kvm"
# How long the probe guest gets to say its word. Under a working KVM it
# answers in well under a second (SeaBIOS, then one boot sector); the
# deadline bounds what a silent KVM can cost a run.
PROBE_DEADLINE = 5.0
MARKER = b"seatd-lease-rig-alive"

Accel = collections.namedtuple("Accel", "name reason args")

TCG_ARGS = ("-accel", "tcg,thread=multi", "-cpu", "max")
KVM_ARGS = ("-accel", "kvm", "-cpu", "host")


class AccelError(Exception):
    """The accelerator asked for cannot be had (SEATD_LEASE_RIG_ACCEL=kvm
    where KVM runs no guest, or a value that is neither tcg nor kvm)."""


def boot_sector():
    """A boot sector that writes MARKER and a newline to COM1 (0x3f8), then
    halts: x86 real mode, as SeaBIOS starts it at 0x7c00."""
    text = MARKER + b"\n"
    code = bytearray()
    code += b"\xba\xf8\x03"  # mov dx, 0x3f8
    code += b"\xbe" + (0x7c00 + 0).to_bytes(2, "little")  # mov si, text (patched below)
    code += b"\xb9" + len(text).to_bytes(2, "little")  # mov cx, len
    code += b"\xfc"  # cld
    code += b"\x2e\xac"  # lodsb (cs:si)
    code += b"\xee"  # out dx, al
    code += b"\xe2\xfb"  # loop lodsb
    code += b"\xfa\xf4"  # cli; hlt
    code += b"\xeb\xfd"  # jmp hlt
    text_at = 0x7c00 + len(code)
    code[4:6] = text_at.to_bytes(2, "little")
    sector = bytes(code) + text
    return sector + b"\0" * (510 - len(sector)) + b"\x55\xaa"


def probe_command(image, accel_args):
    """QEMU booting the probe sector from image, its serial port on stdout."""
    return ["qemu-system-x86_64", *accel_args, "-machine", "pc", "-smp", "1", "-m", "32",
            "-nodefaults", "-no-reboot", "-display", "none", "-vga", "none", "-monitor", "none",
            "-serial", "stdio", "-drive", "if=ide,format=raw,file=%s" % image]


def _die_with_parent():
    PR_SET_PDEATHSIG = 1
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def run_probe(command, deadline=PROBE_DEADLINE, marker=MARKER):
    """Runs command (a guest) until it writes marker on its stdout, it exits,
    or deadline seconds pass; then kills it. Returns (answered, why)."""
    started = time.monotonic()
    proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True,
                            preexec_fn=_die_with_parent)
    seen = b""
    try:
        while True:
            left = deadline - (time.monotonic() - started)
            if left <= 0:
                return False, "the probe guest did not answer within %.0f s" % deadline
            ready, _, _ = select.select([proc.stdout], [], [], left)
            if not ready:
                continue
            chunk = os.read(proc.stdout.fileno(), 4096)
            if not chunk:
                proc.wait()
                last = seen.decode(errors="replace").strip().splitlines()[-1:]
                return False, "QEMU exited with status %s before the probe guest answered%s" % (
                    proc.returncode, ": " + last[0] if last else "")
            seen = (seen + chunk)[-4096:]
            if marker in seen:
                return True, "the probe guest answered in %.1f s" % (time.monotonic() - started)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()
        proc.stdout.close()


def device_opens(path=DEVICE):
    try:
        os.close(os.open(path, os.O_RDWR | os.O_CLOEXEC))
        return True, None
    except OSError as e:
        return False, e.strerror


def probe_kvm(deadline=PROBE_DEADLINE, accel_args=KVM_ARGS):
    """Boots the probe sector under accel_args; (answered, why)."""
    tmp = tempfile.mkdtemp(prefix="seatd-lease-accel.")
    try:
        image = os.path.join(tmp, "probe.img")
        with open(image, "wb") as f:
            f.write(boot_sector())
        return run_probe(probe_command(image, accel_args), deadline)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def decide(forced=None, device=DEVICE, probe=probe_kvm):
    """The accelerator: forced is the value of SEATD_LEASE_RIG_ACCEL (None or
    empty: choose), device the KVM device, probe() -> (answered, why) boots
    a guest under KVM. Raises AccelError for a choice that cannot be had."""
    forced = (forced or "").strip().lower()
    if forced not in ("", "tcg", "kvm"):
        raise AccelError("%s=%s: the rig's accelerator is tcg or kvm" % (ENV, forced))
    if forced == "tcg":
        return Accel("tcg", "%s=tcg" % ENV, TCG_ARGS)
    opens, error = device_opens(device)
    if not opens:
        if forced == "kvm":
            raise AccelError("%s=kvm, but %s cannot be opened (%s): unset %s or set it to tcg"
                             % (ENV, device, error, ENV))
        return Accel("tcg", "%s cannot be opened (%s)" % (device, error), TCG_ARGS)
    answered, why = probe()
    if answered:
        return Accel("kvm", "%s opens and %s" % (device, why), KVM_ARGS)
    if forced == "kvm":
        raise AccelError("%s=kvm, but KVM cannot run a guest here: %s; unset %s or set it to tcg"
                         % (ENV, why, ENV))
    return Accel("tcg", "%s opens but KVM runs no guest: %s" % (device, why), TCG_ARGS)


_chosen = None


def choice():
    """The rig's accelerator for this process, probed once; AccelError as
    decide()."""
    global _chosen
    if _chosen is None:
        _chosen = decide(os.environ.get(ENV))
    return _chosen


def describe():
    """One line for a report: the accelerator and why, or why there is none."""
    try:
        a = choice()
    except AccelError as e:
        return "rig accelerator: none: %s" % e
    return "rig accelerator: %s (%s)" % (a.name, a.reason)
