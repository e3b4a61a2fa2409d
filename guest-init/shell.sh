# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# shell.sh - the start of "runner.sh shell": sourced by the guest's
# interactive bash (its rc file, guest/cmd, after the run's environment:
# MMF_ROOT, MMF_VARIANT, MMF_RESULTS, MMF_KERNELRELEASE...), on the serial
# console.  It gives the console the host terminal's type and size, which
# a serial line does not carry (else a long command line wraps over
# itself), starts the session in the tracing tools' directory and says
# where things are: the kernel, the knob, a line a tool.  With a time
# limit (SECONDS, --timeout; 0 for none), it says so a minute before.
#
# Usage: . shell.sh SECONDS TERM [ROWS COLS]

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

# warn_before_end SECONDS: a line on the console a minute before the host
# stops the guest, SECONDS after qemu started: the guest's uptime, near
# enough.
warn_before_end() {
	local left
	left=$(($1 - 60 - $(cut -d. -f1 /proc/uptime)))
	[ "$left" -gt 0 ] || left=0
	# a subshell's job, not one of the interactive shell's
	( (sleep "$left"; printf '\nmm-frozen: the guest is stopped in a minute (--timeout %s)\n' "$1") & )
}

time_limit() { # time_limit SECONDS
	if [ "$1" = 0 ]; then
		echo "none; exit powers the guest off"
	else
		echo "${1}s after the boot (--timeout), said a minute before; exit powers the guest off"
	fi
}

shell_banner() { # shell_banner SECONDS
	cat <<EOF
mm-frozen guest: $MMF_KERNELRELEASE ($MMF_VARIANT, $MMF_ACCEL)
knob: $(knob_state)
tools here, in $MMF_ROOT/tracing (README.md says how they count):
  bpftrace --unsafe -c '/bin/sleep 10' slab-free-atomics.bt   slab frees by [order, atomics]
  bpftrace --unsafe -c '/bin/sleep 10' free-atomics.bt        frees by [caller, order, atomics]
  ./trace-cmd-recipes.sh frees -- sleep 5                     the same with trace-cmd (or: slab)
  ./churn.sh -q -r 100000 -n 500 all &                        slab, page and folio frees as load
results: $MMF_RESULTS
time limit: $(time_limit "$1")
EOF
}

export TERM=$2
[ $# != 4 ] || stty rows "$3" cols "$4"
[ "$1" = 0 ] || warn_before_end "$1"
cd "$MMF_ROOT/tracing" || return
PS1='mm-frozen:\w# '
shell_banner "$1"
