# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# guest.sh - the guest: the accelerator, qemu, the command the guest
# runs, and what it left: its status, its kernel log, its KTAP.

# choose_accel ACCEL PROBE BUILD: the accelerator of --accel ACCEL and
# why, on one line ("kvm kvm: ok, the probe boot finished"); for auto,
# KVM only when a probe boot of BUILD's kernel prints the kernel banner
# and ends by itself: on these machines /dev/kvm exists but a KVM guest
# can hang after the firmware.  The verdict is kept in the file PROBE
# with what it depends on, the host's kernel, QEMU's version and
# /dev/kvm's access, and probed again when one of them changes.
choose_accel() {
	local probe=$2 key
	case "$1" in
	tcg|kvm|icount) printf '%s --accel %s\n' "$1" "$1"; return ;;
	esac
	# "probe 2": the verdict's line gives its reason since then
	key="probe 2, $(uname -r) $(qemu-system-x86_64 --version | head -n 1)"
	[ -r /dev/kvm ] && [ -w /dev/kvm ] && key+=" /dev/kvm" || key+=" no /dev/kvm"
	if [ "$(sed -n 2p "$probe" 2>/dev/null)" != "$key" ]; then
		printf '%s\n%s\n' "$(probe_kvm "$3")" "$key" > "$probe"
	fi
	head -n 1 "$probe"
}

# probe_kvm BUILD: "kvm REASON" when BUILD's kernel boots under KVM to its
# panic (no root) within 20 s, else "tcg REASON".
probe_kvm() {
	local log rc=0
	if [ ! -r /dev/kvm ] || [ ! -w /dev/kvm ]; then
		echo "tcg kvm probe: no /dev/kvm to read and write"
		return
	fi
	log=$(mktemp)
	timeout -k 2 20 qemu-system-x86_64 -accel kvm -cpu host -m 256 \
		-nodefaults -no-reboot -display none -serial "file:$log" \
		-kernel "$1/arch/x86/boot/bzImage" \
		-append "console=ttyS0 panic=-1" >/dev/null 2>&1 {LOCK_FD}>&- || rc=$?
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		echo "tcg kvm probe: the boot did not finish in 20 s"
	elif [ "$rc" != 0 ]; then
		echo "tcg kvm probe: qemu exited with status $rc"
	elif ! grep -q 'Linux version' "$log"; then
		echo "tcg kvm probe: no kernel banner on the console"
	elif ! grep -q 'Kernel panic' "$log"; then
		echo "tcg kvm probe: the boot did not reach its end"
	else
		echo "kvm kvm: ok, the probe boot finished"
	fi
}

qemu_accel_args() { # qemu_accel_args ACCEL: qemu's options, one a line
	case "$1" in
	kvm) printf '%s\n' -accel kvm -cpu host ;;
	# guest time counts instructions: one nanosecond each (shift=0)
	icount) printf '%s\n' -accel tcg,thread=single -icount shift=0,sleep=off -cpu max ;;
	*) printf '%s\n' -accel tcg -cpu max ;;
	esac
}

# timeout_scale ACCEL: test timeouts are meant for real hardware; TCG is
# about ten times slower.
timeout_scale() {
	if [ "$1" = kvm ]; then echo 1; else echo 10; fi
}

# stall_args ACCEL: the kernel's own stall and hang detectors, with their
# timeouts scaled like the tests' (RCU stalls after 21 s, hung tasks
# after 120 s, soft lockups after twice watchdog_thresh, 10 s, which is
# at most 60): their reports fail a run, so they must not fire for
# emulation's slowness.
stall_args() {
	local scale thresh
	scale=$(timeout_scale "$1")
	thresh=$((10 * scale))
	[ "$thresh" -le 60 ] || thresh=60
	printf 'rcupdate.rcu_cpu_stall_timeout=%d sysctl.kernel.hung_task_timeout_secs=%d watchdog_thresh=%d\n' \
		$((21 * scale)) $((120 * scale)) "$thresh"
}

# runs_the_target CMD: the guest command CMD runs the mm-frozen target
# (no --guest-cmd).
runs_the_target() {
	[ "$1" = "$MMF_ROOT/guest-init/tests.sh" ]
}

# expectation_file EXPECT RUN-NAME CMD: the expected statuses the tests'
# verdict holds a run to: the file EXPECT (--expect), else
# EXPECTED_DIR/RUN-NAME.txt when the guest command CMD runs the mm-frozen
# target; nothing when there is none.
expectation_file() {
	if [ -n "$1" ]; then
		printf '%s\n' "$1"
	elif runs_the_target "$3" && [ -f "$EXPECTED_DIR/$2.txt" ]; then
		printf '%s\n' "$EXPECTED_DIR/$2.txt"
	fi
}

# boot_timeout ACCEL [GIVEN]: the seconds qemu has to reach the guest's
# test entry: GIVEN (--boot-timeout), or BOOT_ALLOWANCE scaled like the
# tests'.
boot_timeout() {
	echo "${2:-$((BOOT_ALLOWANCE * $(timeout_scale "$1")))}"
}

# guest_timeout ACCEL BOOT KSELFTEST-DIR CMD...: the whole guest's time
# for the guest command CMD: its BOOT timeout, and the kselftest timeout
# of each program of the target that it runs (settings, times the TCG
# scale), so that kselftest kills a test that overruns (a "# TIMEOUT"
# result, the next program runs) long before the guest is killed.  A
# guest command of one's own (--guest-cmd) gets GUEST_TIMEOUT.
guest_timeout() {
	local per n=$(($# - 4))
	if ! runs_the_target "$4"; then
		echo "$GUEST_TIMEOUT"
		return
	fi
	per=$(sed -n 's/^timeout=//p' "$MMF_ROOT/selftests/mm-frozen/settings")
	per=$((per * $(timeout_scale "$1")))
	[ "$n" -gt 0 ] || n=$(grep -c . "$3/kselftest-list.txt")
	echo $(($2 + n * per))
}

# write_guest_cmd RESULTS ACCEL CMD...: the script stage2.sh runs in the
# guest: the run's environment, then CMD.
write_guest_cmd() {
	local results=$1 accel=$2 guest="$1/guest"
	mkdir -p "$guest"
	rm -f "$guest/status" "$guest/output.log" "$guest/dmesg.txt" "$guest/kmemleak.txt"
	{
		printf '# written by runner.sh; run by guest-init/stage2.sh\n'
		printf 'export MMF_ROOT=%q MMF_VARIANT=%q MMF_RESULTS=%q MMF_KERNELRELEASE=%q\n' \
			"$MMF_ROOT" "$RUN_NAME" "$results" "$(kernel_release "$TREE" "$BUILD")"
		printf 'export MMF_BUILD=%q MMF_TREE=%q MMF_ACCEL=%q MMF_TIMEOUT_SCALE=%q\n' \
			"$BUILD" "$TREE" "$accel" "$(timeout_scale "$accel")"
		printf 'export MMF_KSELFTEST=%q\n' "$KSELFTEST_DIR"
		printf 'cd %q || exit 125\n' "$PWD"
		printf '%q ' "${@:3}"
		printf '\n'
	} > "$guest/cmd"
}

# show_guest_output: the live view of the guest, its command's output;
# kernel lines (which carry a printk timestamp) stay in console.log.
show_guest_output() {
	if [ "${QUIET:-0}" = 1 ]; then
		cat > /dev/null
	else
		grep --line-buffered -v -E '^\[ *[0-9]+\.[0-9]+\] ' | sed -u 's/^/    guest| /'
	fi
}

# What stage2.sh prints as the guest's test entry starts.
GUEST_READY='mm-frozen: guest ready, running '
# Seconds between two looks for a kernel problem (--stop-at-problem).
PROBLEM_POLL=10

# wait_guest PID CONSOLE BOOT-TIMEOUT STOP-AT-PROBLEM: waits for qemu,
# started under timeout (PID, in a group of its own), and returns its
# status; stops it and returns 125 if CONSOLE has no GUEST_READY line
# BOOT-TIMEOUT seconds after it started, and, when STOP-AT-PROBLEM is 1,
# 126 as soon as CONSOLE shows a kernel problem (looked for every
# PROBLEM_POLL seconds).
wait_guest() {
	local pid=$1 console=$2 deadline=$((SECONDS + $3)) stop=$4 ready='' stopped='' rc=0 poll=0
	track_child "$pid"
	while running_child "$pid"; do
		[ -n "$ready" ] || ! grep -q -F "$GUEST_READY" "$console" 2>/dev/null || ready=1
		[ -n "$ready" ] || [ "$SECONDS" -lt "$deadline" ] || { stopped=125; break; }
		if [ "$stop" = 1 ] && [ "$SECONDS" -ge "$poll" ]; then
			poll=$((SECONDS + PROBLEM_POLL))
			[ -z "$(kernel_problems --live "$console")" ] || { stopped=126; break; }
		fi
		[ -z "$ready" ] || [ "$stop" = 1 ] || break
		sleep 1
	done
	[ -z "$stopped" ] || kill -TERM -- "-$pid" 2>/dev/null || true
	wait_child "$pid" || rc=$?
	return "${stopped:-$rc}"
}

show_last_console_lines() { # show_last_console_lines RESULTS
	printf '    --- last console lines (%s) ---\n' "$1/console.log" >&2
	tail -n 25 "$1/console.log" 2>/dev/null | indent >&2
}

timeout_words() { # timeout_words TIMEOUT: the guest's time limit in words
	if [ -n "$1" ]; then echo "timeout ${1}s"; else echo "no time limit"; fi
}

# qemu_args RESULTS ACCEL MODE KERNEL INITRAMFS: qemu's arguments, one a
# line: the guest boots KERNEL with INITRAMFS, its console logged to
# RESULTS/console.log, the host's root and RESULTS shared over 9p.
qemu_args() {
	local results=$1 accel=$2 mode=$3
	qemu_accel_args "$accel"
	# shellcheck disable=SC2054 # commas belong to qemu's option syntax
	printf '%s\n' -smp 2 -m 2G -nodefaults -no-reboot -display none -monitor none \
		-kernel "$4" -initrd "$5" \
		-append "console=ttyS0 loglevel=5 earlycon=uart8250,io,0x3f8,115200 printk.devkmsg=on panic=-1 $(stall_args "$accel") MMF_RESULTS=$results MMF_STAGE2=$MMF_ROOT/guest-init/stage2.sh MMF_MODE=$mode" \
		-chardev "stdio,id=console,signal=off,logfile=$results/console.log" \
		-serial chardev:console \
		-fsdev "local,id=hostroot,path=/,readonly=on,security_model=none,multidevs=remap" \
		-device virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot \
		-fsdev "local,id=results,path=$results,security_model=none,multidevs=remap" \
		-device virtio-9p-pci,fsdev=results,mount_tag=results
}

# start_qemu_shell RESULTS TIMEOUT ARG...: qemu on this terminal, in the
# background, at most TIMEOUT seconds if one is given.  qemu keeps the
# terminal: it reads it (a background command's input would be
# /dev/null) and stays in the runner's process group, the terminal's
# foreground one (timeout --foreground).
start_qemu_shell() {
	local results=$1 timeout=$2
	local -a limit=()
	shift 2
	[ -z "$timeout" ] || limit=(timeout --foreground -k 10 "$timeout")
	setpriv --pdeathsig TERM "${limit[@]}" qemu-system-x86_64 "$@" \
		<&0 2> "$results/qemu.log" &
}

# start_qemu_batch RESULTS TIMEOUT FIFO ARG...: qemu in the background,
# its console into FIFO.  timeout puts itself and qemu in a process group
# of its own, which the trap stops whole; if the runner dies by SIGKILL,
# the kernel sends timeout SIGTERM (setpriv), which it passes on to qemu.
start_qemu_batch() {
	local results=$1 timeout=$2 fifo=$3
	shift 3
	setpriv --pdeathsig TERM timeout -k 10 "$timeout" qemu-system-x86_64 "$@" \
		< /dev/null 2> "$results/qemu.log" > "$fifo" &
}

# run_qemu RESULTS ACCEL MODE TIMEOUT BOOT-TIMEOUT: boots the built
# kernel with the host's root and the results share; MODE is "batch"
# (console to console.log, kernel lines hidden on screen) or "shell"
# (console on this terminal).  TIMEOUT may be empty: no time limit.
run_qemu() {
	local results=$1 accel=$2 mode=$3 timeout=$4 boot=$5 rc=0 pid reader=''
	local -a args
	case "$results$MMF_ROOT" in
	*[[:space:]]*) die "$E_USAGE" "paths on the guest's command line must not" \
		"contain spaces: $results, $MMF_ROOT" ;;
	esac
	mapfile -t args < <(qemu_args "$results" "$accel" "$mode" \
		"$BUILD/arch/x86/boot/bzImage" "$INITRAMFS")
	printf 'qemu-system-x86_64 %s\n' "${args[*]}" > "$results/qemu.cmdline"
	say "    qemu-system-x86_64 ($accel, 2 vCPUs, 2 GiB), $(timeout_words "$timeout"); console: $results/console.log"
	rm -f "$results/console.log"
	if [ "$mode" = shell ]; then
		start_qemu_shell "$results" "$timeout" "${args[@]}"
	else
		# The console goes through a FIFO, whose reader is waited for:
		# all of it is shown before the runner goes on.
		mkfifo "$RUN_TMP/console"
		show_guest_output < "$RUN_TMP/console" &
		reader=$!
		start_qemu_batch "$results" "$timeout" "$RUN_TMP/console" "${args[@]}"
	fi
	pid=$!
	wait_guest "$pid" "$results/console.log" "$boot" "$STOP_AT_PROBLEM" || rc=$?
	if [ -n "$reader" ]; then
		wait "$reader" || true
		rm -f "$RUN_TMP/console"
	fi
	guest_ended "$results" "$rc" "$timeout" "$boot"
}

# guest_ended RESULTS RC TIMEOUT BOOT-TIMEOUT: dies with why the guest
# ended, if it did not power itself off: wait_guest's RC.
guest_ended() {
	local results=$1 rc=$2 timeout=$3 boot=$4
	if [ "$rc" = 125 ]; then
		show_last_console_lines "$results"
		die "$E_HANG" "the guest did not start its test entry within ${boot}s" \
			"(--boot-timeout) and was stopped"
	fi
	if [ "$rc" = 126 ]; then
		say "    stopped at the guest's first kernel problem (--stop-at-problem)"
		return
	fi
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		show_last_console_lines "$results"
		die "$E_HANG" "the guest did not finish within ${timeout}s and was killed"
	fi
	if [ "$rc" != 0 ]; then
		printf '    --- %s ---\n' "$results/qemu.log" >&2
		tail -n 10 "$results/qemu.log" | indent >&2
		die "$E_GUEST" "qemu-system-x86_64 failed (status $rc)"
	fi
}

# boot_guest RESULTS MODE CMD...: boots the built kernel and has the guest
# run CMD (MODE batch) or give a shell (MODE shell).
boot_guest() {
	local results=$1 mode=$2 timeout=$TIMEOUT accel reason boot
	[ -f "$BUILD/arch/x86/boot/bzImage" ] ||
		die "$E_BUILD" "$BUILD/arch/x86/boot/bzImage not built: run runner.sh kernel first"
	build_initramfs "$INITRAMFS" "$BUILD"
	read -r accel reason <<< "$(choose_accel "$ACCEL" "$WORK/kvm-probe" "$BUILD")"
	# verdict.json says which accelerator ran and why
	printf '%s\n%s\n' "$accel" "$reason" > "$results/accel"
	say "    accelerator: $accel ($reason)"
	write_guest_cmd "$results" "$accel" "${@:3}"
	boot=$(boot_timeout "$accel" "$BOOT_TIMEOUT")
	# a shell lasts as long as its user wants, unless --timeout says
	[ -n "$timeout" ] || [ "$mode" = shell ] ||
		timeout=$(guest_timeout "$accel" "$boot" "$KSELFTEST_DIR" "${@:3}")
	run_qemu "$results" "$accel" "$mode" "$timeout" "$boot"
}

# ---------------------------------------------------------------- what it left

# kernel_problems LOG...: the kernel log lines that fail a run
# (mmfrozen.kernel_log: the patterns of KERNEL_PROBLEMS_FILE, test
# windows honoured).
kernel_problems() {
	mmf_py kernel_log --patterns "$KERNEL_PROBLEMS_FILE" "$@"
}

# decode_reports RESULTS BUILD: the console log and kmemleak's report
# with the file and line of each frame (scripts/decode_stacktrace.sh,
# with BUILD's vmlinux and modules) in RESULTS/decoded-console.log and
# decoded-kmemleak.txt.  A build without debug information (all but
# --variant kasan) gets symbols only; one with it names its sources from
# its build directory, which it calls "." (debug_prefix_args): the base
# path the decoder strips is "./..".
decode_reports() {
	local build=$2 from to
	[ -s "$build/vmlinux" ] || return 0
	for from in console.log guest/kmemleak.txt; do
		[ -s "$1/$from" ] || continue
		to="$1/decoded-$(basename "$from")"
		"$(build_tree "$build")/scripts/decode_stacktrace.sh" "$build/vmlinux" ./.. "$build" \
			< "$1/$from" > "$to" 2> /dev/null ||
			say "    could not decode $1/$from (scripts/decode_stacktrace.sh)"
	done
}

# show_first_report RESULTS PROBLEM: the report that PROBLEM (a line of
# kernel_problems) starts, with its stack: 30 lines of the decoded log
# from it, or kmemleak's first object.  The line is found by what comes
# before its first "+0x": the decoder writes a symbol's file and line in
# place of its offset.
show_first_report() {
	local text decoded=$1/decoded-console.log
	text=$(mmf_py kernel_log text "$2")
	text=${text%%+0x*}
	[[ $text != "kmemleak: "* ]] || decoded=$1/decoded-kmemleak.txt
	[ -s "$decoded" ] || return 0
	printf '    --- the first report, decoded (%s) ---\n' "$decoded" >&2
	if [[ $text == "kmemleak: "* ]]; then
		awk '/^unreferenced object/ && n++ { exit } n' "$decoded"
	else
		grep -F -A 29 -m 1 -- "$text" "$decoded" || true
	fi | head -n 30 | indent >&2
}

# check_kernel_log RESULTS BUILD: dies with E_KERNEL when the guest's
# kernel log shows a problem, or kmemleak found a leak: the lines in
# RESULTS/kernel-problems.txt, the reports decoded (BUILD's kernel)
# beside console.log.
check_kernel_log() {
	local problems
	problems=$(kernel_problems --kmemleak "$1/guest/kmemleak.txt" \
		"$1/console.log" "$1/guest/dmesg.txt")
	[ -n "$problems" ] || return 0
	printf '%s\n' "$problems" > "$1/kernel-problems.txt"
	printf '    --- kernel problems in the guest log ---\n' >&2
	head -n 40 <<< "$problems" | indent >&2
	decode_reports "$1" "$2"
	show_first_report "$1" "$(head -n 1 <<< "$problems")"
	die "$E_KERNEL" "the guest kernel reported $(wc -l <<< "$problems")" \
		"problem line(s); see $1/kernel-problems.txt and decoded-console.log"
}

# guest_status RESULTS: the exit status of the guest's command; dies with
# E_GUEST when the guest stopped before its command finished.
guest_status() {
	if [ ! -s "$1/guest/status" ]; then
		show_last_console_lines "$1"
		die "$E_GUEST" "the guest stopped before its command finished"
	fi
	cat "$1/guest/status"
}

# tests_verdict RESULTS [GUEST-STATUS]: mmfrozen.verdict on the tests of
# RESULTS, held to the expected statuses (EXPECTED_FILE) of the programs
# they ran.
tests_verdict() {
	local programs
	programs=$(IFS=,; echo "${TESTS[*]}")
	mmf_py verdict tests "$1" --variant "$RUN_NAME" --release "$(kernel_release "$TREE" "$BUILD")" \
		${2:+--status "$2"} ${EXPECTED_FILE:+--expect "$EXPECTED_FILE"} ${programs:+--programs "$programs"}
}

# ktap_verdict RESULTS [GUEST-STATUS]: the tests' verdict (mmfrozen.verdict
# reads the KTAP: in 6.12 neither run_kselftest.sh nor "make run_tests"
# exits non-zero when a test fails) in RESULTS/verdict.json; false unless
# every test passed with the status it must have, and the guest's command
# exited 0.  A guest that did not finish (no status) is read from its
# console.
ktap_verdict() {
	local results=$1 status=${2:-} verdict=0
	say ""
	tests_verdict "$results" "$status" || verdict=1
	case "$status" in
	0) ;;
	'') say "    the guest did not finish its test command" ;;
	*) say "    the guest's test command exited with status $status" ;;
	esac
	[ "$verdict" = 0 ]
}

# The results of a guest run of the tests that ended (a timeout, qemu
# failing, an interrupt) before their KTAP was read: the exit trap reads
# what the console shows (read_unread_ktap).
UNREAD_KTAP=''

# read_unread_ktap: the tests' counts in UNREAD_KTAP's verdict.json, from
# its console, for a run whose status is decided already.
# shellcheck disable=SC2317 # called by the exit trap
read_unread_ktap() {
	[ -n "$UNREAD_KTAP" ] && [ -s "$UNREAD_KTAP/console.log" ] || return 0
	say "    the tests' KTAP, as far as the console shows it:"
	# the counts only: the run's status is decided already
	tests_verdict "$UNREAD_KTAP" | indent || true
}

# boot_and_test RESULTS CMD...: the tests, run by CMD in a guest, and
# their verdict.  It comes first, so that verdict.json holds their counts
# whatever the kernel log says; a guest that did not finish is explained
# by its kernel log, if that shows a problem (E_KERNEL), else it stopped
# early (E_GUEST).
boot_and_test() {
	local results=$1 verdict=0
	UNREAD_KTAP=$results
	boot_guest "$results" batch "${@:2}"
	stage "Check the guest's kernel log and results"
	UNREAD_KTAP=''
	ktap_verdict "$results" "$(cat "$results/guest/status" 2>/dev/null)" || verdict=$E_TESTS
	check_kernel_log "$results" "$BUILD"
	guest_status "$results" > /dev/null
	[ "${QUIET:-0}" = 1 ] || mmf_py summary "$SRC_WORK/results"
	say "    results: $results"
	[ "$verdict" = 0 ] || exit "$verdict"
}
