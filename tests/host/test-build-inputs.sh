#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A run boots the kernel it names.  The mutants share one build
# directory, and exec does not build: after mutant A's build,
# "--mutant B exec" is refused (exit 2), naming the patch each has, and
# nothing boots; "--mutant A exec" boots.  A --with patch whose name, as
# git format-patch writes it, is 60 characters long gets a kernel release
# within the kernel's 64.
# guest: stand-in
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

a="$MMF_ROOT/tests/mutants/0004-bulk-no-refcount.patch"
b="$MMF_ROOT/tests/mutants/0005-freelist-refcounted.patch"
build=$("$RUNNER" "${TEST_FLAGS[@]}" --mutant "$a" where build)
mkdir -p "$build/arch/x86/boot"
: > "$build/arch/x86/boot/bzImage"
built_from "$build" "${TEST_FLAGS[@]}" --mutant "$a"

scenario up-then-done
run_runner --mutant "$b" --results "$TMP/b" exec -- true
expect_status 2
expect_output "built from: +patch [0-9a-f]{64} $(basename "$a")"
expect_output "options name: +patch [0-9a-f]{64} $(basename "$b")"
expect_text 'was built from other patches or config than the options name'
[ ! -e "$TMP/b/console.log" ] || fail "a guest booted the other mutant's kernel"

run_runner --mutant "$a" --results "$TMP/a" exec -- true
expect_status 0

# shellcheck source=../../runner.sh
. "$RUNNER"
name=0001-mm-slub-Check-the-refcount-of-each-frozen-slab-pa.patch
[ ${#name} = 60 ] || fail "not 60 characters: $name"
variant="with-${name%.patch}"
release="6.12.118-$PATCHED_BRANCH-$(release_suffix "$variant")"
[ ${#release} -le "$RELEASE_MAX" ] || fail "release $release: ${#release} characters"
[ "$(release_suffix with-short)" = with-short ] || fail "a short variant's release changed"
[ "$(release_suffix "$variant")" != "$(release_suffix "${variant}x")" ] ||
	fail "two long variants share a release"
echo "build inputs: mutant B's exec refused on A's build (exit 2), both named; A's booted;" \
	"a ${#variant}-character variant's release is ${#release} characters"
