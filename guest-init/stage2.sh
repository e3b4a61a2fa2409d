#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# mm-frozen guest, stage 2: PID 1 inside the overlay of the host's root.
#
# Mounts what tests and tracing tools need, then either runs the command
# file the host left in the results share ($MMF_RESULTS/guest/cmd) or,
# with MMF_MODE=shell, an interactive shell on the serial console that
# reads that file first.  The
# command's output goes to the console and to guest/output.log, its exit
# status to guest/status, kmemleak's report to guest/kmemleak.txt (a
# kernel with kmemleak), gcov's counters to guest/gcov-boot (the boot's)
# and guest/gcov (the command's; a kernel with gcov), the kernel log to
# guest/dmesg.txt; then the guest powers off.  PID 1 must never exit:
# every path ends in poweroff.

export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root
export TERM="${TERM:-linux}"
# The kernel trees are git repositories seen over 9p: without LOCALVERSION
# set, every make in them runs setlocalversion's "git status" over 80,000
# files, minutes under TCG.  runner.sh builds with LOCALVERSION= too, so
# the kernel release stays the same.
export LOCALVERSION=
GCOV=/sys/kernel/debug/gcov

mount_guest_filesystems() {
	# devtmpfs lacks the /dev/fd links that udev would make; the kselftest
	# runner writes its log to /dev/stdout.
	ln -sfn /proc/self/fd /dev/fd
	ln -sfn /proc/self/fd/0 /dev/stdin
	ln -sfn /proc/self/fd/1 /dev/stdout
	ln -sfn /proc/self/fd/2 /dev/stderr
	mkdir -p /dev/pts /dev/shm
	mount -t devpts -o gid=5,mode=620 devpts /dev/pts
	mount -t tmpfs -o mode=1777 tmpfs /dev/shm
	mount -t debugfs debugfs /sys/kernel/debug
	mount -t tracefs tracefs /sys/kernel/tracing
	mount -t cgroup2 cgroup2 /sys/fs/cgroup
	hostname mm-frozen-guest
}

power_off() {
	sync
	/bin/busybox poweroff -f
	# Not reached unless poweroff failed: let the host's timeout act.
	while :; do sleep 3600; done
}

# scan_kmemleak GUEST-DIR: with kmemleak (runner.sh --variant kasan, where
# it does not scan by itself), one scan once the command has ended; its
# report, empty when it found nothing, to GUEST-DIR/kmemleak.txt for the
# host to judge.  It reports an object allocated more than 5 s before.
scan_kmemleak() {
	[ -w /sys/kernel/debug/kmemleak ] || return 0
	echo scan > /sys/kernel/debug/kmemleak
	cat /sys/kernel/debug/kmemleak > "$1/kmemleak.txt"
}

# save_gcov GUEST-DIR NAME: with gcov (runner.sh --variant coverage), the
# counters of each profiled object as they are now, in GUEST-DIR/NAME
# under the path the kernel gives them (the build directory's).  Read
# with cat: the kernel's gcov documentation warns that cp may truncate a
# .gcda file.
save_gcov() {
	[ -d "$GCOV" ] || return 0
	find "$GCOV" -name '*.gcda' | while read -r counters; do
		saved="$1/$2/${counters#"$GCOV"/}"
		mkdir -p "${saved%/*}"
		cat "$counters" > "$saved"
	done
}

# start_gcov GUEST-DIR: the boot's counters kept in GUEST-DIR/gcov-boot,
# then every counter set to zero, so that GUEST-DIR/gcov holds the
# command's alone.
start_gcov() {
	[ -d "$GCOV" ] || return 0
	save_gcov "$1" gcov-boot
	echo 1 > "$GCOV/reset"
}

run_command_file() {
	guest="$MMF_RESULTS/guest"

	if [ ! -f "$guest/cmd" ]; then
		echo "mm-frozen stage2: no command file $guest/cmd" >&2
		echo 127 > "$guest/status"
		return
	fi
	cd /
	# the boot's length, in the guest's time: a slow kernel shows here
	echo "mm-frozen: guest ready, running $guest/cmd ($(cut -d' ' -f1 /proc/uptime) s after boot)"
	start_gcov "$guest"
	{
		# runner.sh quotes the command with printf %q: bash syntax
		bash "$guest/cmd"
		echo $? > "$guest/status"
	} 2>&1 | tee "$guest/output.log"
	save_gcov "$guest" gcov
	scan_kmemleak "$guest"
	dmesg > "$guest/dmesg.txt"
	echo "mm-frozen: guest command exited with status $(cat "$guest/status")"
}

# run_shell: an interactive bash on the serial console, its rc file the
# command file (the run's environment, then guest-init/shell.sh).  The
# first line has what the host waits for to know that the guest is up.
run_shell() {
	echo "mm-frozen: guest ready, running a shell on the console; exit it to power the guest off"
	setsid -c /bin/bash --rcfile "$MMF_RESULTS/guest/cmd" -i </dev/ttyS0 >/dev/ttyS0 2>&1
}

mount_guest_filesystems
case "$MMF_MODE" in
shell)	run_shell ;;
*)	run_command_file ;;
esac
power_off
