# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# shell.sh - the start of "runner.sh shell": sourced by the guest's
# interactive bash (its rc file, guest/cmd, after the run's environment:
# MMF_ROOT, MMF_VARIANT, MMF_RESULTS, MMF_KERNELRELEASE...), on the serial
# console.  It gives the console the host terminal's type and size, which
# a serial line does not carry (else a long command line wraps over
# itself), starts the session in the tracing tools' directory and says
# where things are: the kernel, the knob, a line a tool.
#
# Usage: . shell.sh TERM [ROWS COLS]

MMF_KNOB=/sys/kernel/debug/frozen_pages/slab_frozen

# knob_state: the slab_frozen knob's value and what it means, or why
# there is none.
knob_state() {
	local value
	if ! value=$(cat "$MMF_KNOB" 2>/dev/null); then
		echo "none ($MMF_KNOB: a kernel without CONFIG_DEBUG_FROZEN_PAGES or the series)"
	elif [ "$value" = 1 ]; then
		echo "slab_frozen=1, slab pages are allocated and freed frozen ($MMF_KNOB)"
	else
		echo "slab_frozen=$value, slab pages are refcounted ($MMF_KNOB)"
	fi
}

shell_banner() {
	cat <<EOF
mm-frozen guest: $MMF_KERNELRELEASE ($MMF_VARIANT, $MMF_ACCEL)
knob: $(knob_state)
tools here, in $MMF_ROOT/tracing (README.md says how they count):
  bpftrace --unsafe -c '/bin/sleep 10' slab-free-atomics.bt   slab frees by [order, atomics]
  bpftrace --unsafe -c '/bin/sleep 10' free-atomics.bt        frees by [caller, order, atomics]
  ./trace-cmd-recipes.sh frees -- sleep 5                     the same with trace-cmd (or: slab)
  ./churn.sh -q -r 100000 -n 500 all &                        slab, page and folio frees as load
results: $MMF_RESULTS; "exit" powers the guest off
EOF
}

export TERM=$1
[ $# != 3 ] || stty rows "$2" cols "$3"
cd "$MMF_ROOT/tracing" || return
PS1='mm-frozen:\w# '
shell_banner
