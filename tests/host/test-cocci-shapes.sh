#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# cocci/slab_page_ref.cocci, as "runner.sh callers" runs it (cocci_report):
# on a tiny git tree holding tests/fixtures/callers/shapes.c, it reports
# exactly the lines that the file marks "hit: WHAT", with those words,
# and none of the shapes it must not (a page of another source, a
# variable assigned again, a bvec iterator); a file that names no word
# of a Keywords group is not read.  The table's side:
# tests/unit/test_callers.py.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=../../runner.sh
. "$RUNNER"

command -v spatch > /dev/null || fail "no spatch: runner.sh deps installs coccinelle"
RUN_TMP=$TMP
shapes="$MMF_ROOT/tests/fixtures/callers/shapes.c"
mkdir -p "$TMP/tree/drivers" "$TMP/tree/mm"
cp "$shapes" "$TMP/tree/drivers/shapes.c"
# The same calls, but no word of the second group: never read.
grep -v -e virt_to -e kmap_to -e iov_iter_is_kvec "$shapes" > "$TMP/tree/mm/unread.c"
git -C "$TMP/tree" init -q
git -C "$TMP/tree" add .

[ "$(cocci_files "$CALLERS_COCCI" "$TMP/tree")" = drivers/shapes.c ] ||
	fail "cocci_files: not drivers/shapes.c alone" <(cocci_files "$CALLERS_COCCI" "$TMP/tree")
cocci_report "$CALLERS_COCCI" "$TMP/tree" "$TMP/report" 2
sed -n 's|^drivers/shapes.c:\([0-9]*\):[^:]*: \(.*\)$|\1 \2|p' "$TMP/report" | sort -n > "$TMP/found"
grep -n '/\* hit: ' "$shapes" | sed 's|^\([0-9]*\):.*/\* hit: \(.*\) \*/$|\1 \2|' > "$TMP/marked"
diff -u "$TMP/marked" "$TMP/found" > "$TMP/diff" || fail "the report is not the marked lines" "$TMP/diff"
[ "$(wc -l < "$TMP/report")" = "$(wc -l < "$TMP/found")" ] ||
	fail "the report has lines of another file or shape" "$TMP/report"
echo "slab_page_ref.cocci: the $(wc -l < "$TMP/marked") marked shapes reported, nothing else, the unread file skipped"
