"""The rig's choice of accelerator (accel.py), on every machine: none of these
needs KVM, and none boots the rig itself. A "guest that never answers" is the
real probe QEMU with its CPU held stopped (-S): it runs, prints nothing and
never exits, which is what QEMU does under a KVM that runs no guest. The probe
guest itself is booted for real under TCG."""

import os
import time

import pytest

import accel

NO_DEVICE = "/nonexistent/kvm"
OPENS = os.devnull  # opens read-write, like a /dev/kvm that runs no guest


@pytest.fixture
def silent_guest(tmp_path):
    image = tmp_path / "probe.img"
    image.write_bytes(accel.boot_sector())
    return accel.probe_command(str(image), accel.TCG_ARGS) + ["-S"]


def must_not_probe():
    raise AssertionError("KVM was probed")


def answering():
    return True, "the probe guest answered in 0.1 s"


def test_no_device_never_tries_kvm():
    a = accel.decide(None, device=NO_DEVICE, probe=must_not_probe)
    assert a.name == "tcg" and a.args == accel.TCG_ARGS
    assert NO_DEVICE in a.reason and "cannot be opened" in a.reason


def test_a_guest_that_never_answers_means_tcg_within_the_deadline(silent_guest):
    deadline = 2.0
    started = time.monotonic()
    a = accel.decide(None, device=OPENS,
                     probe=lambda: accel.run_probe(silent_guest, deadline=deadline))
    took = time.monotonic() - started
    assert a.name == "tcg" and a.args == accel.TCG_ARGS
    assert "runs no guest" in a.reason and "did not answer within 2 s" in a.reason
    assert deadline <= took < deadline + 3, took


def test_the_silent_guest_is_killed(silent_guest, tmp_path):
    marker = str(tmp_path).encode()  # in the guest's -drive file=
    assert not accel.run_probe(silent_guest, deadline=1)[0]
    alive = [p for p in os.listdir("/proc") if p.isdigit() and marker in _cmdline(p)]
    assert alive == []


def _cmdline(pid):
    try:
        with open("/proc/%s/cmdline" % pid, "rb") as f:
            return f.read()
    except OSError:
        return b""


def test_a_qemu_that_fails_means_tcg_and_says_why():
    failing = ["sh", "-c", "echo 'failed to initialize kvm: Permission denied' >&2; exit 1"]
    a = accel.decide("", device=OPENS, probe=lambda: accel.run_probe(failing, deadline=5))
    assert a.name == "tcg"
    assert "exited with status 1" in a.reason and "Permission denied" in a.reason


def test_a_kvm_that_answers_is_used():
    a = accel.decide(None, device=OPENS, probe=answering)
    assert a.name == "kvm" and a.args == accel.KVM_ARGS


def test_forced_tcg_does_not_probe():
    a = accel.decide("tcg", device=OPENS, probe=must_not_probe)
    assert a.name == "tcg" and "SEATD_LEASE_RIG_ACCEL=tcg" in a.reason


def test_forced_kvm_that_runs_no_guest_is_a_clear_error_not_a_hang(silent_guest):
    started = time.monotonic()
    with pytest.raises(accel.AccelError) as e:
        accel.decide("kvm", device=OPENS,
                     probe=lambda: accel.run_probe(silent_guest, deadline=1))
    assert time.monotonic() - started < 4
    assert "SEATD_LEASE_RIG_ACCEL=kvm" in str(e.value) and "cannot run a guest" in str(e.value)


def test_forced_kvm_without_a_device_is_a_clear_error():
    with pytest.raises(accel.AccelError, match="cannot be opened"):
        accel.decide("kvm", device=NO_DEVICE, probe=must_not_probe)


def test_forced_kvm_that_works_is_used():
    assert accel.decide("kvm", device=OPENS, probe=answering).name == "kvm"


def test_an_unknown_value_is_refused():
    with pytest.raises(accel.AccelError, match="tcg or kvm"):
        accel.decide("hvf", device=OPENS, probe=must_not_probe)


def test_the_probe_guest_answers_under_tcg():
    # The same sector the KVM probe boots: were it broken, a working KVM would
    # be taken for a silent one.
    answered, why = accel.probe_kvm(deadline=30, accel_args=accel.TCG_ARGS)
    assert answered, why


@pytest.mark.skipif(os.path.exists(accel.DEVICE), reason="this machine has a /dev/kvm")
def test_a_real_qemu_without_kvm_means_tcg():
    # The real probe under -accel kvm, where the device opens for us but QEMU
    # finds no KVM: QEMU fails at once, and that is TCG, with QEMU's words.
    a = accel.decide(None, device=OPENS, probe=accel.probe_kvm)
    assert a.name == "tcg" and "exited with status" in a.reason, a.reason


def test_this_run_has_an_accelerator():
    # What the rig tests of this run boot under (the report's header says it too).
    a = accel.choice()
    assert a.name in ("tcg", "kvm")
    if not os.path.exists(accel.DEVICE):
        assert a.name == "tcg"
