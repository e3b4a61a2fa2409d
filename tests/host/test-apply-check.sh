#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# How each patch of a series applies (check_apply, apply_patches), on a
# tiny git repository: patches made on a commit O, applied to its
# upstream successor U, which edits the context of one patch's hunk, holds
# another patch already, and changes the line a third one changes.  They
# must be "applies", "3-way", "in-tree" and "conflict" (the patch, file
# and hunk named, the check stopping there); a tree holding a series
# whose later patch edits an earlier one's line holds it "in-tree" from
# there; git am applies a fit series, and a second time keeps it, also
# after another series was applied in a worktree of its own.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=../../runner.sh
. "$RUNNER"

git_() { git -c user.name=test -c user.email=test@localhost -c advice.detachedHead=false "$@"; }

# edit REPO LINE TEXT: line LINE of mm/a.c becomes TEXT.
edit() {
	sed -i "$2s/.*/$3/" "$1/mm/a.c"
}

# A patch a commit on O in the work tree $TMP/o, written as format-patch.
patch_of() { # patch_of NAME LINE TEXT
	git_ -C "$TMP/o" checkout -q --detach O
	edit "$TMP/o" "$2" "$3"
	git_ -C "$TMP/o" commit -q -am "test: $1"
	git_ -C "$TMP/o" format-patch -q -1 --stdout > "$TMP/patches/$1.patch"
	echo "$1.patch" >> "$TMP/patches/series"
}

mkdir -p "$TMP/o/mm" "$TMP/patches"
seq 1 40 | sed 's/^/line /' > "$TMP/o/mm/a.c"
git_ -C "$TMP/o" init -q
git_ -C "$TMP/o" add mm/a.c
git_ -C "$TMP/o" commit -q -m O
git_ -C "$TMP/o" tag O
patch_of 0001-applies 3 'line 3 patched'
patch_of 0002-3-way 20 'line 20 patched'
patch_of 0003-in-tree 30 'line 30 patched'
patch_of 0004-conflict 36 'line 36 patched'

# U: O's successor upstream, the tree the series goes on ($BASE_TAG).
git_ clone -q "$TMP/o" "$TMP/u"
git_ -C "$TMP/u" checkout -q --detach O
edit "$TMP/u" 18 'line 18 upstream'
edit "$TMP/u" 30 'line 30 patched'
edit "$TMP/u" 36 'line 36 upstream'
git_ -C "$TMP/u" commit -q -am U
git_ -C "$TMP/u" tag "$BASE_TAG"

mapfile -t names < "$TMP/patches/series"
status=0
check_apply "$TMP/u" "$TMP/patches" "$TMP/apply.tsv" "${names[@]}" || status=$?
[ "$status" = 1 ] || fail "check_apply: status $status with a conflict, not 1"
printf '%s\t%s\t%s\n' 0001-applies.patch applies '' 0002-3-way.patch 3-way '' \
	0003-in-tree.patch in-tree 'applies in reverse' \
	0004-conflict.patch conflict 'mm/a.c: hunks at 33' > "$TMP/expected.tsv"
diff -u "$TMP/expected.tsv" "$TMP/apply.tsv" > "$TMP/diff" ||
	fail "check_apply: $(cat "$TMP/diff")" /dev/null
git -C "$TMP/u" diff --quiet HEAD || fail "check_apply changed the work tree" /dev/null

STATUS=0
(die_conflict "$TMP/apply.tsv") 2> "$TMP/out" || STATUS=$?
expect_status "$E_PATCH"
expect_text "patch 0004-conflict.patch does not apply on $BASE_TAG (after the patches before it); conflicting files: mm/a.c (hunks at 33)"

# The fit part of the series, applied with git am, then kept.
sed -i '$d' "$TMP/patches/series"
mapfile -t names < "$TMP/patches/series"

apply_patches "$TMP/u" mm-frozen "$TMP/patches" "${names[@]}" > "$TMP/out"
expect_text 'of 3 patches: kept 0, applied 2, already in the tree 1'
[ "$(git -C "$TMP/u" rev-list --count "$BASE_TAG..mm-frozen")" = 2 ] || fail "not 2 commits on $BASE_TAG"
grep -q -x 'line 20 patched' "$TMP/u/mm/a.c" || fail "0002 was not merged" /dev/null
apply_patches "$TMP/u" mm-frozen "$TMP/patches" "${names[@]}" > "$TMP/out"
expect_text '3 patches already applied'

# Another series in a worktree of its own (--drop) leaves the first alone.
git -C "$TMP/u" worktree add -q --detach "$TMP/u-drop" "$BASE_TAG"
apply_patches "$TMP/u-drop" mm-frozen-drop-0002 "$TMP/patches" 0001-applies.patch > "$TMP/out"
expect_text 'of 1 patches: kept 0, applied 1'
apply_patches "$TMP/u" mm-frozen "$TMP/patches" "${names[@]}" > "$TMP/out"
expect_text '3 patches already applied'

# A tree that holds 0001 and a later patch editing 0001's line: 0001 does
# not apply in reverse alone, the series from it on does.
printf '0001-applies.patch\n0005-over-0001.patch\n' > "$TMP/patches/series"
git_ -C "$TMP/o" checkout -q --detach O
git_ -C "$TMP/o" am -q "$TMP/patches/0001-applies.patch"
edit "$TMP/o" 3 'line 3 patched twice'
git_ -C "$TMP/o" commit -q -am 'test: 0005-over-0001'
git_ -C "$TMP/o" format-patch -q -1 --stdout > "$TMP/patches/0005-over-0001.patch"
git_ -C "$TMP/o" tag -f "$BASE_TAG" > /dev/null
check_apply "$TMP/o" "$TMP/patches" "$TMP/apply.tsv" 0001-applies.patch 0005-over-0001.patch ||
	fail "check_apply: a conflict in a tree that holds the series" /dev/null
[ "$(cut -f2,3 "$TMP/apply.tsv" | sort -u)" = $'in-tree\tthe series from here applies in reverse' ] ||
	fail "a tree that holds the series: $(cat "$TMP/apply.tsv")" /dev/null
echo "apply check: applies, 3-way, in-tree, conflict (patch, file, hunk named), the series in reverse; git am, then kept"
