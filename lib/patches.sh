# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# patches.sh - the series: the patches its file lists, --drop, --with,
# how each patch applies (checked on a scratch index, the work tree
# untouched), and git am of those that need it.

# listed_patches DIR: the patch file names that DIR/series lists, in order.
listed_patches() {
	grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' "$1/series"
}

# series_patches DIR [DROPPED...]: the patches to apply: those listed,
# but for the DROPPED ones.
series_patches() {
	listed_patches "$1" | grep -v -x -F -f <(printf '%s\n' "${@:2}")
}

# patch_file DIR NAME: the file of a patch that a series or --with names.
patch_file() {
	case "$2" in
	/*) printf '%s\n' "$2" ;;
	*) printf '%s/%s\n' "$1" "$2" ;;
	esac
}

# require_series DIR: DIR has a series file.
require_series() {
	[ -f "$1/series" ] || die "$E_PATCH" "no series file in $1"
}

# resolve_drop DIR ARG: the one patch of DIR/series that ARG names, by its
# file name or by the start of it (its number: 0014).
resolve_drop() {
	local name exact=() starting=()
	require_series "$1"
	while read -r name; do
		[ "$name" != "$2" ] || exact+=("$name")
		[[ $name != "$2"* ]] || starting+=("$name")
	done < <(listed_patches "$1")
	[ ${#exact[@]} = 0 ] || starting=("${exact[@]}")
	[ ${#starting[@]} = 1 ] ||
		die "$E_USAGE" "--drop $2: ${#starting[@]} patches of $1/series match, not 1"
	printf '%s\n' "${starting[0]}"
}

# ---------------------------------------------------------------- apply check

# index_apply TREE INDEX ARGS...: git apply on a scratch index of TREE.
index_apply() {
	GIT_INDEX_FILE=$2 git -C "$1" apply --cached "${@:3}"
}

# reverses_from TREE DIR INDEX I PATCH...: whether patches I.. of the list
# are all in the tree already, the last one on top: they apply in
# reverse, in reverse order.
reverses_from() {
	local tree=$1 dir=$2 copy i ok=0
	local -a names=("${@:5}")
	copy=$(mktemp)
	cp "$3" "$copy"
	for ((i = ${#names[@]} - 1; i >= $4; i--)); do
		index_apply "$tree" "$copy" -R "$(patch_file "$dir" "${names[i]}")" 2>/dev/null ||
			{ ok=1; break; }
	done
	rm -f "$copy"
	return "$ok"
}

# conflict_detail TREE INDEX PATCH ERRORS: why PATCH does not apply on the
# scratch index, from git apply's ERRORS and GNU patch run without fuzz
# over the files as the index has them (git apply stops at a file's first
# failing hunk): "FILE: hunks at LINE, LINE; FILE: missing".
conflict_detail() {
	local tree=$1 dir f
	dir=$(mktemp -d)
	while read -r f; do
		mkdir -p "$dir/$(dirname "$f")"
		GIT_INDEX_FILE=$2 git -C "$tree" show ":$f" > "$dir/$f" 2>/dev/null || rm -f "$dir/$f"
	done < <(git -C "$tree" apply --numstat "$3" | cut -f3)
	patch -p1 -f -F0 --dry-run -d "$dir" < "$3" > "$dir.out" 2>&1 || true
	mmf_py patches detail "$dir.out" "$4"
	rm -rf "$dir" "$dir.out"
}

# check_apply TREE DIR OUT PATCH...: how each PATCH of DIR applies, in
# order, on a scratch index that starts at $BASE_TAG and takes each patch
# that applies; the work tree is not touched.  One "PATCH <TAB> STATUS
# <TAB> DETAIL" line each in OUT:
#   applies   git apply takes it as it is
#   in-tree   the tree has it already: it applies in reverse, alone, or
#             with every patch after it (a tree that holds the series)
#   3-way     only a 3-way merge takes it
#   conflict  none of these; DETAIL names the files and hunks
# Stops after the first conflict, and then returns 1.
check_apply() {
	local tree=$1 dir=$2 out=$3 index three err i p detail
	local -a names=("${@:4}")
	index=$(mktemp)
	three=$(mktemp)
	err=$(mktemp)
	: > "$out"
	GIT_INDEX_FILE=$index git -C "$tree" read-tree "$BASE_TAG"
	for ((i = 0; i < ${#names[@]}; i++)); do
		p=$(patch_file "$dir" "${names[i]}")
		if index_apply "$tree" "$index" "$p" 2> "$err"; then
			printf '%s\tapplies\t\n' "${names[i]}"
		elif index_apply "$tree" "$index" -R --check "$p" 2>/dev/null; then
			printf '%s\tin-tree\tapplies in reverse\n' "${names[i]}"
		elif reverses_from "$tree" "$dir" "$index" "$i" "${names[@]}"; then
			printf '%s\tin-tree\tthe series from here applies in reverse\n' "${names[@]:i}"
			break
		elif cp "$index" "$three" && index_apply "$tree" "$three" -3 "$p" >/dev/null 2>&1; then
			cp "$three" "$index"
			printf '%s\t3-way\t\n' "${names[i]}"
		else
			detail=$(conflict_detail "$tree" "$index" "$p" "$err")
			printf '%s\tconflict\t%s\n' "${names[i]}" "${detail:-see git apply}"
			break
		fi
	done >> "$out"
	rm -f "$index" "$three" "$err"
	! grep -q -P '\tconflict\t' "$out"
}

# die_conflict STATUS-FILE: the first conflict that check_apply found.
die_conflict() {
	local p detail
	IFS=$'\t' read -r p _ detail < <(grep -P '\tconflict\t' "$1")
	die "$E_PATCH" "patch $p does not apply on $BASE_TAG" \
		"(after the patches before it); conflicting files:" \
		"$(mmf_py patches files "$detail")"
}

# ---------------------------------------------------------------- apply

# The stamp lists the patches applied in a tree, one "sha256 <TAB>
# commit" line each (a patch already in the tree has the commit before
# it).  A changed series keeps the commits of its unchanged leading
# patches and applies the rest from there, so the build recompiles only
# what the changed patches touch.  Each worktree has its own (in its git
# directory): a series applied in one, with patches dropped, leaves the
# others' commits, and their builds, as they are.
applied_stamp() { # applied_stamp TREE
	printf '%s/mm-frozen-applied\n' "$(git -C "$1" rev-parse --absolute-git-dir)"
}

# kept_patches STAMP TREE HASH...: how many leading patches of the new
# series TREE holds already; 0 unless its HEAD is where the last run left it.
kept_patches() {
	local stamp=$1 tree=$2 n=0 hash
	local -a hashes=("${@:3}")
	if [ ! -s "$stamp" ] ||
	   [ "$(tail -n 1 "$stamp" | cut -f2)" != "$(git -C "$tree" rev-parse HEAD)" ]; then
		echo 0
		return
	fi
	while IFS=$'\t' read -r hash _; do
		if [ "$n" -ge ${#hashes[@]} ] || [ "$hash" != "${hashes[n]}" ]; then
			break
		fi
		n=$((n + 1))
	done < "$stamp"
	echo "$n"
}

# patch_hashes DIR NAME...: the sha256 of each patch file, a line each;
# dies on a name that DIR has no file of.
patch_hashes() {
	local dir=$1 p
	shift
	for p in "$@"; do
		p=$(patch_file "$dir" "$p")
		[ -f "$p" ] || die "$E_PATCH" "series lists $p, not found in $dir"
		sha256sum < "$p" | cut -d' ' -f1
	done
}

# restart_branch TREE BRANCH STAMP KEPT: BRANCH checked out where the
# KEPT leading patches of STAMP left it (the base with none), and STAMP
# cut to them, for the rest to be applied.
restart_branch() {
	local tree=$1 branch=$2 stamp=$3 kept=$4 start=$BASE_TAG
	[ "$kept" = 0 ] || start=$(sed -n "${kept}p" "$stamp" | cut -f2)
	git -C "$tree" am --abort >/dev/null 2>&1 || true
	git -C "$tree" checkout -q -B "$branch" "$start"
	if [ "$kept" = 0 ]; then
		: > "$stamp"
	else
		sed -i "$((kept + 1)),\$d" "$stamp"
	fi
}

# apply_patches TREE BRANCH DIR PATCH...: the series on branch BRANCH of
# TREE, each patch as check_apply found it: "git am", "git am -3", or not
# at all for one the tree has already.
apply_patches() {
	local tree=$1 branch=$2 dir=$3 stamp p kept i statuses status hashes_text in_tree=0
	local -a names=("${@:4}") hashes=()
	stamp=$(applied_stamp "$tree")
	[ ${#names[@]} -gt 0 ] || die "$E_PATCH" "no patches to apply in $dir/series"
	hashes_text=$(patch_hashes "$dir" "${names[@]}")
	mapfile -t hashes <<< "$hashes_text"
	kept=$(kept_patches "$stamp" "$tree" "${hashes[@]}")
	if [ "$kept" = "${#names[@]}" ] && [ "$(wc -l < "$stamp")" = "$kept" ]; then
		say "    ${#names[@]} patches already applied (branch $branch)"
		return
	fi
	if [ -n "$(git -C "$tree" status --porcelain --untracked-files=no)" ]; then
		die "$E_PATCH" "$tree has uncommitted changes and the series" \
			"changed; commit or discard them first"
	fi
	statuses=$(mktemp)
	check_apply "$tree" "$dir" "$statuses" "${names[@]}" || die_conflict "$statuses"
	restart_branch "$tree" "$branch" "$stamp" "$kept"
	for ((i = kept; i < ${#names[@]}; i++)); do
		status=$(sed -n "$((i + 1))p" "$statuses" | cut -f2)
		p=$(patch_file "$dir" "${names[i]}")
		case "$status" in
		applies) git -C "$tree" "${GIT_IDENT[@]}" am -q "$p" ;;
		3-way) git -C "$tree" "${GIT_IDENT[@]}" am -q -3 "$p" ;;
		in-tree) in_tree=$((in_tree + 1)) ;;
		esac || die "$E_PATCH" "git am failed on ${names[i]} (the check passed; see above)"
		printf '%s\t%s\n' "${hashes[i]}" "$(git -C "$tree" rev-parse HEAD)" >> "$stamp"
	done
	rm -f "$statuses"
	say "    of ${#names[@]} patches: kept $kept, applied $((${#names[@]} - kept - in_tree))," \
		"already in the tree $in_tree (branch $branch)"
}
