#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The tracing sessions of the docs run as they are written: the commands
# of tracing/README.md's "A session" typed into "runner.sh shell", those
# of docs/tracing.md's session run by "runner.sh exec", and with
# MMF_CHECK_FULL=1 (make check-full) each the other way too.
# Each bpftrace command prints its losses and its table, each
# trace-cmd-recipes.sh command its lost events and its table.
# needs: kernel
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# readme_session: the commands of tracing/README.md's "A session" block.
readme_session() {
	awk '/^## A session$/ { s = 1 } s && /^```sh$/ { b = 1; next }
		b && /^```$/ { exit } b' "$MMF_ROOT/tracing/README.md"
}

# docs_session: the commands of docs/tracing.md's session, its "# " lines.
docs_session() {
	awk '/^A session in the guest/ { s = 1 } s && /^```$/ { if (b) exit; b = 1; next }
		b && /^# / { print substr($0, 3) }' "$MMF_ROOT/docs/tracing.md"
}

# expect_tables SESSION: $TMP/out has what each command of SESSION prints.
expect_tables() {
	local bt tc
	bt=$(grep -c '^bpftrace ' <<< "$1")
	tc=$(grep -c 'trace-cmd-recipes.sh ' <<< "$1")
	[ "$bt" -gt 0 ] || fail "no bpftrace command in the sessions" /dev/null
	[ "$tc" -gt 0 ] || fail "no trace-cmd-recipes.sh command in the sessions" /dev/null
	[ "$(grep -c '^lost BPF program runs: ' "$TMP/out")" = "$bt" ] ||
		fail "not one 'lost BPF program runs' line for each of the $bt bpftrace commands"
	[ "$(grep -c '^lost events: ' "$TMP/out")" = "$tc" ] ||
		fail "not one 'lost events' line for each of the $tc trace-cmd-recipes.sh commands"
	[ "$(grep -c -E '^(Slab page|Page) frees by \[' "$TMP/out")" = $((bt + tc)) ] ||
		fail "not one table for each of the $((bt + tc)) tracing commands"
	! grep -E 'No such file|not found|Permission denied|syntax error|ERROR' "$TMP/out" ||
		fail "a command of the sessions failed"
}

# exec_session SESSION: SESSION's commands run by "runner.sh exec", from
# the tracing tools' directory, where the shell starts.
exec_session() {
	run_runner --results "$TMP/exec" exec -- bash -e -c "cd \"\$MMF_ROOT/tracing\"
$1"
	expect_status 0
	expect_tables "$1"
}

# typed_session SESSION: SESSION's commands typed into "runner.sh shell",
# a line at each prompt, then exit.
typed_session() {
	local -a lines
	mapfile -t lines <<< "$1"
	shell_session --results "$TMP/shell" -- "${lines[@]}" exit
	expect_status 0
	expect_tables "$1"
}

# Each session the way its doc says it was made: README's at the shell,
# docs/tracing.md's with exec (4 to 5 minutes of TCG guest); make
# check-full runs each the other way too.
readme=$(readme_session)
docs=$(docs_session)
typed_session "$readme"
exec_session "$docs"
ways="README's in shell, docs/tracing.md's in exec"
if [ "${MMF_CHECK_FULL:-0}" = 1 ]; then
	exec_session "$readme"
	typed_session "$docs"
	ways="each in shell and in exec"
fi
echo "doc sessions: $(wc -l <<< "$readme") and $(wc -l <<< "$docs") commands, $ways:" \
	"each tracing command printed its losses and its table"
