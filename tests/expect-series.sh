#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# expect-series.sh - the series check ("runner.sh series") on trees where
# its verdict is known, one TAP result each:
#   1. the installed linux-source-6.12: every patch applies, none has a
#      checkpatch error, exit status 0;
#   2. linux-source-6.1: the check stops at the first patch that does not
#      apply, naming it and its files; exit status 4, nothing built;
#   3. a git tree with a synthetic upstream commit on 0008's second hunk:
#      one that edits a line of its context makes 0008 the first "3-way"
#      and the series fit; one that edits the line it changes makes exactly 0008
#      the conflict;
#   4. a series of 0001, a patch that adds a compiler warning and one that
#      does not compile: the bisect build counts the warning the second
#      adds, names the third and shows the compiler's error; exit status 5;
#   5. a tree that holds the series already: every patch is "in-tree",
#      none a conflict;
#   6. the matrix of the installed tree and 6.1: a row each, 6.1's FAIL
#      at 0001, exit status 1;
#   7. the same two sources as CI jobs, the results of 1 and 2, each
#      from a work directory of its own, merged from their results
#      directories alone ("matrix --merge"): the same table and
#      matrix.json as 6.
# The builds of 4 are incremental, and ccache serves the base from the
# baseline's build.
#
# Usage: tests/expect-series.sh [RUNNER-OPTIONS...]

set -u
cd "$(dirname "$0")/.." || exit 1

WORK=$(./runner.sh "$@" where work)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
OUT="$TMP/out"
GIT_IDENT=(-c user.name=mm-frozen-test -c user.email=mm-frozen@localhost)
# shellcheck source=tests/tap.sh
. tests/tap.sh

# series SOURCE ARGS...: runner.sh series on SOURCE; output in $OUT, exit
# status in $STATUS, the source's results directory in $DIR.
series() {
	local source=$1
	shift
	STATUS=0
	./runner.sh "${RUNNER_ARGS[@]}" --source "$source" "$@" series > "$OUT" 2>&1 || STATUS=$?
	DIR=$(sed -n 's/^(table: \(.*\)\/series.json)$/\1/p' "$OUT" | tail -n 1)
}

# result DESCRIPTION PROBLEM...: one TAP line; the problems and the end of
# the run's output when there are any.
result() {
	tap_result "$@" || tail -n 30 "$OUT" | sed 's/^/#   /'
}

# apply_statuses: "PATCH STATUS" for each patch the check reached.
apply_statuses() {
	jq -r '.patches[] | select(.apply) | "\(.patch) \(.apply.status)"' "$DIR/series.json"
}

# upstream_commit CLONE SED: a commit on the installed source's base, in
# CLONE (a clone of it made on first use), that edits mm/page_alloc.c
# with the sed script SED.
upstream_commit() {
	local up=$1 base blob tree
	[ -d "$up" ] || git clone -q --shared --no-checkout "$WORK/linux" "$up"
	base=$(git -C "$up" rev-parse "mm-frozen-base^{commit}")
	blob=$(git -C "$up" show "$base:mm/page_alloc.c" | sed "$2" | git -C "$up" hash-object -w --stdin)
	GIT_INDEX_FILE="$TMP/index" git -C "$up" read-tree "$base"
	GIT_INDEX_FILE="$TMP/index" git -C "$up" update-index --cacheinfo "100644,$blob,mm/page_alloc.c"
	tree=$(GIT_INDEX_FILE="$TMP/index" git -C "$up" write-tree)
	git -C "$up" "${GIT_IDENT[@]}" commit-tree -p "$base" -m "upstream: $2" "$tree"
}

# The lines of 0008's second hunk in the base: a context line, then the
# line that the hunk changes, two lines below it.
readonly HUNK_CONTEXT='^\t\t\t\t\t\tINIT_COMPACT_PRIORITY,$'
readonly EDIT_CONTEXT="/$HUNK_CONTEXT/s/\$/  \/* upstream edit *\//"
readonly EDIT_CHANGED="/$HUNK_CONTEXT/{n;n;s/^\t\tif (page)\$/\t\tif (page != NULL)/}"

# A job of check_merge: the results directory of the last check, kept as
# NAME.
keep_job() {
	mkdir -p "$TMP/jobs"
	cp -r "$DIR" "$TMP/jobs/$1"
}

check_installed() {
	local problems=()
	series installed --no-bisect --no-test
	keep_job installed
	[ "$STATUS" = 0 ] || problems+=("exit status $STATUS, expected 0")
	! apply_statuses | grep -q -v ' applies$' || problems+=("not every patch applies")
	jq -e '[.patches[].checkpatch.errors] | all(. == 0)' "$DIR/series.json" > /dev/null ||
		problems+=("checkpatch errors")
	result "installed 6.12: $(apply_statuses | wc -l) patches apply, no checkpatch error" "${problems[@]}"
}

check_older_major() {
	local problems=() conflict files src
	# a work directory of its own, as a CI job's
	series linux-source-6.1 --work "$TMP/work-6.1"
	keep_job linux-source-6.1
	src=$(dirname "$(dirname "$DIR")")
	[ "$STATUS" = 4 ] || problems+=("exit status $STATUS, expected 4")
	conflict=$(apply_statuses | awk '$2 == "conflict" { print $1 }')
	[ -n "$conflict" ] && [ "$(apply_statuses | tail -n 1)" = "$conflict conflict" ] ||
		problems+=("the check did not stop at one conflict")
	files=$(jq -r '.patches[] | select(.apply.status == "conflict") | .apply.detail' "$DIR/series.json" |
		tr ';' '\n' | sed 's/^ *//; s/:.*//')
	grep -q -F "patch $conflict does not apply" "$OUT" || problems+=("the error does not name $conflict")
	for f in $files; do
		grep -q -F "conflicting files: $f" "$OUT" || problems+=("the error does not name $f")
	done
	if compgen -G "$src/linux*/.build-*" > /dev/null; then problems+=("a build directory exists"); fi
	result "6.1: stops at ${conflict:-?} ($files), exit 4, nothing built" "${problems[@]}"
}

# The matrix of the installed tree and 6.1: one table, a row each, 6.1's
# first cell FAIL with its exit status 4; the matrix exits 1.
check_matrix() {
	local problems=() status=0 row
	./runner.sh "${RUNNER_ARGS[@]}" --no-bisect --no-test --results "$TMP/matrix" \
		matrix installed linux-source-6.1 > "$OUT" 2>&1 || status=$?
	[ "$status" = 1 ] || problems+=("exit status $status, expected 1")
	grep -q -E '^linux-source-6\.12 \(installed\) +OK +.* 0 +- *$' "$OUT" ||
		problems+=("no row for the installed tree, every cell OK, exit 0")
	row=$(grep -E '^linux-source-6\.1 ' "$OUT")
	[[ "$row" =~ ^linux-source-6\.1\ +FAIL\ .*\ 4\ +-\ *$ ]] ||
		problems+=("6.1's row is not FAIL at 0001 with exit 4: $row")
	result "matrix: the installed tree OK, 6.1 FAIL at 0001 (exit 4), the matrix exits 1" \
		"${problems[@]}"
	cp "$OUT" "$TMP/matrix.out"
}

# table OUTPUT: the matrix's table in a runner's OUTPUT, without the line
# that names its results directory.
table() {
	sed -n '/^source /,/^(cells: /p' "$1" | sed '$d'
}

# The installed tree and 6.1 as two CI jobs, the checks of
# check_installed and check_older_major, each from a work directory of
# its own: "matrix --merge" of their results directories, with a work
# directory that does not exist, gives the table and matrix.json of
# check_matrix, and its exit status.
check_merge() {
	local problems=() jobs="$TMP/jobs" status=0
	./runner.sh "${RUNNER_ARGS[@]}" --work "$TMP/no-work" --results "$TMP/merged" \
		matrix --merge "$jobs/installed" "$jobs/linux-source-6.1" > "$OUT" 2>&1 || status=$?
	[ "$status" = 1 ] || problems+=("exit status $status, expected 1")
	[ ! -e "$TMP/no-work" ] || problems+=("the merge made a work directory")
	[ "$(table "$OUT")" = "$(table "$TMP/matrix.out")" ] ||
		problems+=("not the table of the matrix:" "$(diff <(table "$TMP/matrix.out") <(table "$OUT"))")
	cmp -s "$TMP/merged/matrix.json" "$TMP/matrix/matrix.json" ||
		problems+=("matrix.json differs from the matrix's:" \
			"$(diff <(jq -S . "$TMP/matrix/matrix.json") <(jq -S . "$TMP/merged/matrix.json") | head -n 20)")
	result "two jobs in their own work directories, merged: the matrix's table and matrix.json" \
		"${problems[@]}"
}

# Two upstream commits on 0008's second hunk: one edits a line of its
# context, which a 3-way merge resolves; one edits the line it changes.
check_synthetic_upstream() {
	local problems=() context changed expected merged
	expected=$(grep -x '0008-.*' patches/series)
	context=$(upstream_commit "$TMP/upstream" "$EDIT_CONTEXT")
	changed=$(upstream_commit "$TMP/upstream" "$EDIT_CHANGED")
	series "$TMP/upstream@$context" --no-bisect --no-test
	[ "$STATUS" = 0 ] || problems+=("context edit: exit status $STATUS, expected 0")
	# A later patch with the edited line in its context merges too.
	[ "$(apply_statuses | grep -v ' applies$' | head -n 1)" = "$expected 3-way" ] &&
	  ! apply_statuses | grep -q ' conflict$' ||
		problems+=("context edit: expected $expected as the first 3-way, and no conflict:" \
			"$(apply_statuses | grep -v ' applies$' | paste -s -d ' ')")
	merged=$(apply_statuses | grep -c ' 3-way$')
	rm -rf "$(dirname "$(dirname "$DIR")")"
	series "$TMP/upstream@$changed" --no-bisect --no-test
	[ "$STATUS" = 4 ] || problems+=("changed line: exit status $STATUS, expected 4")
	[ "$(apply_statuses | grep -v ' applies$')" = "$expected conflict" ] ||
		problems+=("changed line: expected $expected as the only conflict, after patches that apply")
	grep -q -F "patch $expected does not apply" "$OUT" || problems+=("the error does not name $expected")
	result "upstream commits on 0008's lines: context edit $merged patches 3-way, changed line a conflict at 0008" \
		"${problems[@]}"
	rm -rf "$(dirname "$(dirname "$DIR")")"
}

# 0001, then a patch that adds one warning, then one that does not compile.
check_broken_build() {
	local problems=() dir="$TMP/broken" warning=0002-test-add-a-warning.patch
	local broken=0003-test-break-the-build.patch added
	mkdir "$dir"
	cp patches/0001-*.patch "tests/data/$warning" "tests/data/$broken" "$dir/"
	(cd "$dir" && ls 0001-*.patch "$warning" "$broken") > "$dir/series"
	series "$WORK/linux@mm-frozen-base" --patches "$dir" --no-test
	[ "$STATUS" = 5 ] || problems+=("exit status $STATUS, expected 5")
	[ "$(awk -F '\t' '{ sub(/-.*/, "", $1); print $1, $2, $4 }' "$DIR/build.tsv" | paste -s -d ' ')" = \
	  "(base) ok 0 0001 ok 0 0002 ok 1 0003 fail " ] ||
		problems+=("expected base and 0001 built adding 0 warnings, 0002 adding 1, 0003 failed:" \
			"$(cut -f1,2,4 "$DIR/build.tsv" | paste -s -d ' ')")
	grep -q -F "$broken does not build" "$OUT" || problems+=("the error does not name $broken")
	grep -q 'page_alloc.c:[0-9]*:[0-9]*: error: ' "$OUT" || problems+=("no compiler error shown")
	added=$(jq '.patches[1].build.warnings_added' "$DIR/series.json")
	result "bisect build: $warning adds $added warning, $broken named with the compiler error" \
		"${problems[@]}"
}

check_in_tree() {
	local problems=()
	series "$WORK/linux@mm-frozen" --no-bisect --no-test
	[ "$STATUS" = 0 ] || problems+=("exit status $STATUS, expected 0")
	! apply_statuses | grep -q -v ' in-tree$' || problems+=("a patch not reported in-tree")
	[ "$(apply_statuses | wc -l)" = "$(grep -c -v -e '^#' -e '^$' patches/series)" ] ||
		problems+=("not every patch was checked")
	result "a tree with the series: $(apply_statuses | grep -c ' in-tree$') patches in-tree" "${problems[@]}"
}

RUNNER_ARGS=("$@")
[ -d "$WORK/linux/.git" ] || { echo "no source tree in $WORK/linux: run runner.sh kernel first"; exit 1; }
echo "TAP version 13"
echo "1..7"
check_installed
check_older_major
check_matrix
check_merge
check_synthetic_upstream
check_broken_build
check_in_tree
echo "series check: $((n - failed)) passed, $failed failed"
[ "$failed" = 0 ]
