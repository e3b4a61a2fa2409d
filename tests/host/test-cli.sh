#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The command line: usage errors exit 2 with runner.sh's own message and
# change nothing; options go before or after the command; --drop names
# one patch, --with and --config a file that names the variant, --mutant
# one that every mutant's tree shares; --help, the README's tables and dispatch come from one
# command table and one exit-code table, which are well formed.
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# usage_error MESSAGE-REGEX ARGS...: runner.sh ARGS is a usage error.
expect_usage_error() {
	local message=$1
	shift
	run_runner "$@"
	expect_status 2
	expect_output "^runner.sh: error: $message"
}

run_runner --help
expect_status 0
expect_output '^Usage: runner.sh'
expect_output '^  exec -- CMD\.\.\. '

expect_usage_error 'unknown argument: --no-such-option' --no-such-option
expect_usage_error 'unknown argument: --no-such' bench --accel tcg --no-such
expect_usage_error '--work needs DIR' --work
expect_usage_error '--work needs DIR' kernel --work ''
expect_usage_error '--timeout needs a number' --timeout soon boot
expect_usage_error '--accel must be one of' exec --accel fast -- true
expect_usage_error 'deps does not take --tests' deps --tests frozen_knob_test
expect_usage_error 'unknown argument: foo \(kernel takes none\)' kernel foo
expect_usage_error 'where takes \[NAME\], not: source work' where source work
expect_usage_error 'matrix needs SPEC\.\.\.' matrix
expect_usage_error 'exec needs -- CMD\.\.\.' exec
expect_usage_error '--drop 9999: 0 patches of .* match, not 1' --drop 9999 kernel
expect_usage_error "--drop 00: $(grep -c '^00' "$MMF_ROOT/patches/series") patches of .* match, not 1" kernel --drop 00
expect_usage_error '--drop, --with and --mutant change the series, which the baseline does not have' \
	--baseline --drop 0014 kernel
expect_usage_error '--with .*/no-such.patch: no such file' --with "$TMP/no-such.patch" kernel
: > "$TMP/a b.patch"
expect_usage_error '--with .*/a b.patch: its name must be letters, digits' --with "$TMP/a b.patch" kernel
expect_usage_error '--config .*/no-such.config: no such file' --config "$TMP/no-such.config" kernel
expect_usage_error 'series checks the series as patches/ has it: no --with, --config or --mutant' \
	series --config "$MMF_ROOT/config/variant-bench.config"
expect_usage_error 'series checks the series, not the baseline' series --baseline
expect_usage_error 'coverage runs the coverage variant, not kasan' coverage --variant kasan
mutant=$(find "$MMF_ROOT/tests/mutants" -name '*.patch' | sort | head -n 1)
expect_usage_error 'mutants: no mutant no-such-mutant in ' mutants no-such-mutant
expect_usage_error 'mutants are the whole series and a mutant each, by name: no --drop, --with or --mutant' \
	mutants --mutant "$mutant"
expect_usage_error '--drop, --with and --mutant change the series, which the baseline does not have' \
	--baseline --mutant "$mutant" kernel
expect_usage_error '--mutant is the whole series and the mutant: no --drop, no --with' \
	--mutant "$mutant" --with "$mutant" kernel
expect_usage_error '--source no-such-thing: not a linux-source package, a tarball or PATH@REF' \
	--source no-such-thing series
expect_usage_error '--source .*@no-such-ref: no-such-ref is not a commit of' --source "$TMP@no-such-ref" series
expect_usage_error '--source linux-source-6.12=0.0-1: apt knows no version 0.0-1 of linux-source-6.12' \
	--source linux-source-6.12=0.0-1 series
expect_usage_error '--source linux-source-0.0: apt knows no version of linux-source-0.0' \
	--source linux-source-0.0 series

# A directory that runner.sh did not create is never emptied.
mkdir "$TMP/precious"
echo keep > "$TMP/precious/file"
expect_usage_error '.*/precious is not empty and not a results directory' --no-wait --results "$TMP/precious" boot
[ "$(cat "$TMP/precious/file")" = keep ] || fail "the results directory was changed"

# Options before and after the command; --drop by number or by name.
work="$TMP/work"
run_runner --work "$work" where build --baseline
[ "$(cat "$TMP/out")" = "$work/linux-baseline/.build-baseline" ] || fail "where build --baseline"
fix=$(grep -m 1 '^0014-' "$MMF_ROOT/patches/series")
for drop in 0014 "$fix"; do
	run_runner where tree --drop "$drop" --work "$work"
	expect_status 0
	[ "$(cat "$TMP/out")" = "$work/linux-drop-0014" ] || fail "--drop $drop: not linux-drop-0014"
done
run_runner --work "$work" --drop 0014 --drop 0017 where build
[ "$(cat "$TMP/out")" = "$work/linux-drop-0014-0017/.build-drop-0014-0017" ] ||
	fail "--drop 0014 --drop 0017: not drop-0014-0017"
# --with and --config name the variant after their files; --config alone
# keeps the variant's tree.
: > "$TMP/leak.patch"
run_runner --work "$work" --variant kasan --drop 0014 --with "$TMP/leak.patch" where build
[ "$(cat "$TMP/out")" = "$work/linux-drop-0014-with-leak/.build-kasan-drop-0014-with-leak" ] ||
	fail "--variant kasan --drop 0014 --with leak.patch: not kasan-drop-0014-with-leak"
run_runner --work "$work" --variant kasan --config "$MMF_ROOT/config/variant-bench.config" where build
[ "$(cat "$TMP/out")" = "$work/linux/.build-kasan-config-variant-bench" ] ||
	fail "--variant kasan --config variant-bench.config: not kasan-config-variant-bench in linux/"
# Every mutant shares one tree and build; each has results of its own.
run_runner --work "$work" --mutant "$mutant" where build
[ "$(cat "$TMP/out")" = "$work/linux-mutant/.build-mutant" ] || fail "--mutant: not linux-mutant/.build-mutant"
run_runner --work "$work" --mutant "$mutant" where results
[ "$(cat "$TMP/out")" = "$work/results/mutant-$(basename "$mutant" .patch)" ] ||
	fail "--mutant: results not mutant-$(basename "$mutant" .patch)"
[ ! -e "$work" ] || fail "where created $work"

# The tables, as runner.sh defines them.
# shellcheck source=../../runner.sh
. "$RUNNER"
while IFS= read -r row; do
	IFS='|' read -r -a field <<< "$row|"
	[ ${#field[@]} = 9 ] || fail "command table: ${#field[@]} fields, not 9: $row" /dev/null
	declare -F "${field[6]}" > /dev/null || fail "command table: no function ${field[6]}: $row" /dev/null
	[[ " variant command bench matrix " == *" ${field[4]:-variant} "* ]] ||
		fail "command table: results ${field[4]}: $row" /dev/null
	[[ ${field[5]} =~ ^(|tests|[0-9]+)$ ]] || fail "command table: timeout ${field[5]}: $row" /dev/null
	for flag in ${field[3]//,/ }; do
		[[ $flag == @(lock|quiet) ]] || fail "command table: flag $flag: $row" /dev/null
	done
	for option in ${field[2]//,/ }; do
		option_field "$option" 1 > /dev/null || fail "command table: no option $option: $row" /dev/null
	done
done < <(command_table)
while IFS='|' read -r code outcome _; do
	[ "$(outcome_of "$code")" = "$outcome" ] ||
		fail "exit-code table: outcome_of $code is not $outcome" /dev/null
	grep -q -E "^  $code +$outcome " <<< "$(usage)" || fail "--help does not list $code $outcome" /dev/null
done < <(exit_code_table)
[ "$(outcome_of 42)" = internal-error ] || fail "an unknown status is not an internal error" /dev/null

# The README's tables are those of "runner.sh help markdown".
sed -n '/^<!-- runner.sh help markdown -->$/,/^<!-- end -->$/p' "$MMF_ROOT/README.md" |
	sed '1d;$d' > "$TMP/readme-tables"
usage_markdown > "$TMP/tables"
diff -u "$TMP/tables" "$TMP/readme-tables" > "$TMP/tables.diff" ||
	fail "README.md's tables are not those of runner.sh help markdown: $(cat "$TMP/tables.diff")" /dev/null
echo "cli: $(grep -c "^expect_usage_error " "$0") usage errors rejected, options after the command, --drop, --with, --config, --mutant, the tables checked, README's tables current"
