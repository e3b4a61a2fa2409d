#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# --accel auto decides both ways, with a stand-in qemu-system-x86_64
# (tests/host/data/qemu/) whose KVM probe boot reaches the kernel's panic
# (KVM), prints nothing, or fails (TCG), each with its reason as
# verdict.json records it; the verdict is kept in WORK/kvm-probe and
# probed again when what it depends on changes; --accel tcg is taken as
# asked.  The probe needs /dev/kvm to read and write, which the machines
# here have (KVM itself does not work on them: no nested virtualisation).
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

if [ ! -r /dev/kvm ] || [ ! -w /dev/kvm ]; then
	echo "SKIP: no /dev/kvm to read and write here: the probe cannot run"
	exit 0
fi
export PATH="$MMF_ROOT/tests/host/data/qemu:$PATH"

# decide ACCEL WORK BOOT: what runner.sh's choose_accel says with --accel
# ACCEL, work directory WORK, and a probe boot that goes as BOOT says.
decide() {
	mkdir -p "$2"
	# shellcheck disable=SC2016 # the inner shell expands them
	FAKE_KVM_BOOT=$3 bash -c '. "$1/runner.sh"; exec {LOCK_FD}< /dev/null
		choose_accel "$2" "$3/kvm-probe" "$3"' _ "$MMF_ROOT" "$1" "$2"
}

# expect_decision ACCEL WORK BOOT DECISION
expect_decision() {
	local got
	got=$(decide "$1" "$2" "$3")
	[ "$got" = "$4" ] || fail "--accel $1, probe boot $3, in ${2##*/}: '$got', not '$4'"
}

expect_decision auto "$TMP/ok" ok "kvm kvm: ok, the probe boot finished"
expect_decision auto "$TMP/silent" silent "tcg kvm probe: no kernel banner on the console"
expect_decision auto "$TMP/fails" fails "tcg kvm probe: qemu exited with status 1"
# The verdict is kept: no second probe, until the key (QEMU's version,
# the host's kernel, /dev/kvm's access) changes.
expect_decision auto "$TMP/ok" fails "kvm kvm: ok, the probe boot finished"
sed -i 2d "$TMP/ok/kvm-probe"
expect_decision auto "$TMP/ok" fails "tcg kvm probe: qemu exited with status 1"
expect_decision tcg "$TMP/tcg" ok "tcg --accel tcg"
echo "kvm probe: KVM when the probe boot finishes, TCG with the reason when it does not, kept and probed again"
