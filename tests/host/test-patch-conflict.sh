#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A patch that does not apply stops the run with exit status 4, naming the
# patch and the conflicting file, and leaves the source tree as it was.
# needs: kernel
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

SOURCE=$("$RUNNER" "${TEST_FLAGS[@]}" where source)
[ -d "$SOURCE/.git" ] || fail "no source tree in $SOURCE: run runner.sh kernel first"

mkdir "$TMP/patches"
cat > "$TMP/patches/0001-conflict.patch" <<'PATCH'
From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
From: mm-frozen test <mm-frozen@localhost>
Subject: [PATCH] test: a hunk that cannot apply

---
 mm/page_alloc.c | 2 +-
 1 file changed, 1 insertion(+), 1 deletion(-)

diff --git a/mm/page_alloc.c b/mm/page_alloc.c
--- a/mm/page_alloc.c
+++ b/mm/page_alloc.c
@@ -1,3 +1,3 @@
-this line is not in page_alloc.c
+neither is this one
 nor this
 nor that
PATCH
echo 0001-conflict.patch > "$TMP/patches/series"

head_before=$(git -C "$SOURCE" rev-parse HEAD)
status_before=$(git -C "$SOURCE" status --porcelain --untracked-files=no)
run_runner --patches "$TMP/patches" kernel
expect_status 4
expect_output 'patch 0001-conflict.patch does not apply'
expect_output 'conflicting files: mm/page_alloc.c'
[ "$(git -C "$SOURCE" rev-parse HEAD)" = "$head_before" ] ||
	fail "HEAD of $SOURCE moved"
[ "$(git -C "$SOURCE" status --porcelain --untracked-files=no)" = "$status_before" ] ||
	fail "the work tree of $SOURCE changed"
echo "conflict: patch and file named, tree untouched"
