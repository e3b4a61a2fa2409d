#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# expect-tooth.sh - the sanitizers' teeth: a kernel built with a bug put
# in on purpose, as a variant of --variant kasan, must have the bug
# reported by the sanitizer that exists for it, with the stacks that say
# where.
# The run must end with exit status 7 (a kernel problem), and every
# pattern of the tooth must be in the decoded console (the report with
# its stacks, decoded: decoded-console.log), and each frame that
# tooth_frames names must be a line of its function in the tooth's tree.
# Fails if the sanitizer stays silent, if a frame names another tree's or
# another version's line, or if the run breaks otherwise (build, hang).
#
#   uaf   a use-after-free: the series without its slab refcount fix
#         (0014), built without DEBUG_VM, whose VM_BUG_ON would stop
#         get_page() on a frozen slab page first.  frozen_hazard_test's
#         bvec over a kmalloc-64 object takes the slab page from 0 to 1
#         and put_page() frees it under its objects; KASAN reports the
#         test's next read of the object, and page_owner, in the same
#         report, the stack that freed the page: put_page()'s
#         __folio_put().  (KASAN cannot name the object's cache: the free
#         put the page on a free list, whose link now fills the slab's
#         cache pointer.)
#   leak  a leaked page: tests/data/teeth/slab-refcount-leak.patch gives
#         a slab allocated with slab_frozen=0 a refcount of 2;
#         frozen_knob_test's churn frees such slabs, and the detector of
#         CONFIG_DEBUG_FROZEN_PAGES reports each one at its free, which
#         leaves the page to the extra reference.
#   double-free  a slab page freed twice:
#         tests/data/teeth/slab-double-free.patch frees a frozen slab
#         page again when the first free left it at the head of a free
#         block; tracing_scripts.sh's workload frees such slabs (one
#         128 KiB object each), and free_pages_prepare() reports the
#         second free as a bad page, with page_owner's stacks of the
#         page's allocation and first free: __free_slab().
#
# Usage: tests/expect-tooth.sh TOOTH [RUNNER-OPTIONS...]

set -u
cd "$(dirname "$0")/.." || exit 1

readonly TEETH='uaf leak double-free'
readonly E_KERNEL=7

# tooth_options TOOTH: the runner options that build the tooth's kernel,
# one a line.
tooth_options() {
	case "$1" in
	uaf)
		printf '%s\n' --variant kasan --drop 0014 --config tests/data/teeth/no-debug-vm.config ;;
	leak) printf '%s\n' --variant kasan --with tests/data/teeth/slab-refcount-leak.patch ;;
	double-free) printf '%s\n' --variant kasan --with tests/data/teeth/slab-double-free.patch ;;
	esac
}

# tooth_test TOOTH: the program of the target that reaches the bug.
tooth_test() {
	case "$1" in
	uaf) echo frozen_hazard_test ;;
	leak) echo frozen_knob_test ;;
	double-free) echo tracing_scripts.sh ;;
	esac
}

# tooth_patterns TOOTH: what the report must say, one extended regular
# expression a line.
tooth_patterns() {
	case "$1" in
	uaf)
		printf '%s\n' 'BUG: KASAN: use-after-free in hz_bvec_get_pages' \
			'Read of size 1 at addr [0-9a-f]+ by task frozen_hazard_t' \
			'The buggy address belongs to the object at [0-9a-f]+' \
			'page_owner tracks the page as freed' \
			'page last free pid [0-9]+ tgid [0-9]+ stack trace:' \
			'^\[ *[0-9.]+\] __folio_put ' ;;
	leak)
		printf '%s\n' 'frozen_pages: bad refcount at slab free: pfn:0x[0-9a-f]+ order:[0-9]+ refcount:2 expected:1' ;;
	double-free)
		printf '%s\n' 'BUG: Bad page state in process [^ ]+ +pfn:[0-9a-f]+' \
			'page_type: f0\(buddy\)' \
			'page dumped because: nonzero mapcount' \
			'page_owner tracks the page as freed' \
			'page last allocated via order [4-9],' \
			'page last free pid [0-9]+ tgid [0-9]+ stack trace:' \
			'^\[ *[0-9.]+\] __free_slab ' ;;
	esac
}

# tooth_frames TOOTH: the functions whose first decoded frame must name a
# line of their own body in the tooth's tree (mmfrozen.frames): the
# decoder read the lines of the sources the kernel was built from,
# whichever build directory ccache served its objects from.  leak's
# report is one line, without a stack.
tooth_frames() {
	case "$1" in
	uaf) echo __folio_put ;;
	double-free) echo __free_slab ;;
	esac
}

tooth=${1:-}
[[ " $TEETH " == *" $tooth "* && -n $tooth ]] || {
	echo "usage: tests/expect-tooth.sh TOOTH [RUNNER-OPTIONS...]; TOOTH: one of $TEETH" >&2
	exit 2
}
shift

results=$(mktemp -d "/tmp/mm-frozen-tooth-$tooth.XXXXXX")
decoded="$results/decoded-console.log"

# shellcheck source=step.sh
. tests/step.sh
fail() { fail_step "expect-tooth $tooth" "$results" "$@"; }

mapfile -t options < <(tooth_options "$tooth")
status=0
./runner.sh "${options[@]}" --tests "$(tooth_test "$tooth")" --results "$results" "$@" || status=$?
[ "$status" = "$E_KERNEL" ] ||
	fail "runner.sh ${options[*]} exited with $status, expected $E_KERNEL (a kernel problem)"
[ -s "$decoded" ] || fail "no decoded console: $decoded"
while read -r pattern; do
	grep -q -E -- "$pattern" "$decoded" || fail "the report does not say /$pattern/"
done < <(tooth_patterns "$tooth")
mapfile -t functions < <(tooth_frames "$tooth")
if [ ${#functions[@]} -gt 0 ]; then
	tree=$(./runner.sh "${options[@]}" "$@" where tree) || fail "runner.sh where tree failed"
	frames=$(PYTHONPATH=lib python3 -m mmfrozen frames --tree "$tree" "$decoded" "${functions[@]}") ||
		fail "a decoded frame is not in its function's lines in $tree:"$'\n'"$frames"
	mapfile -t checked <<< "$frames"
	printf '    %s\n' "${checked[@]}"
fi
echo "expect-tooth $tooth: caught: $(grep -m 1 -o -E -- "$(tooth_patterns "$tooth" | head -n 1).*" "$decoded")"
rm -rf "$results"
