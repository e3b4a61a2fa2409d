# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# callers.sh - the callers in the tree that take or drop a page
# reference on memory that may come from kmalloc(): the semantic patch
# cocci/slab_page_ref.cocci run by spatch, each hit held to its class in
# docs/callers.md (mmfrozen.callers), with whether Debian's own config,
# from Debian's linux-headers package of the same version, builds it.

readonly CALLERS_COCCI="$MMF_ROOT/cocci/slab_page_ref.cocci"
readonly CALLERS_CLASSES="$MMF_ROOT/docs/callers.md"

# source_version KIND LOCATOR: the Debian version of a source
# (resolve_source); nothing for a tarball or a git tree.
source_version() {
	case "$1" in
	installed) installed_version ;;
	deb) printf '%s\n' "${2#*=}" ;;
	esac
}

# debian_headers VERSION: PACKAGE=VERSION of Debian's amd64 linux-headers
# package built from the kernel source VERSION, whose .config is
# Debian's own.
debian_headers() {
	local upstream=${1%%-*} package
	for package in $(apt-cache pkgnames "linux-headers-$upstream" | grep -E -- "^linux-headers-${upstream}[^-]*-amd64\$"); do
		if apt-cache madison "$package" | mmf_py sources offers "$package" "$1"; then
			printf '%s=%s\n' "$package" "$1"
			return
		fi
	done
	die "$E_PACKAGES" "apt knows no amd64 linux-headers package of version $1, whose config is Debian's"
}

# debian_config DIR PACKAGE=VERSION: the .config of that linux-headers
# package, kept in DIR; prints its file.
debian_config() {
	local config="$1/${2//[=:~]/_}.config" deb
	if [ ! -s "$config" ]; then
		deb=$(download_deb "$1" "$2")
		dpkg-deb --fsys-tarfile "$deb" |
			tar -xO --wildcards './usr/src/linux-headers-*/.config' > "$config.tmp"
		mv "$config.tmp" "$config"
	fi
	printf '%s\n' "$config"
}

# cocci_files COCCI TREE: the files of TREE that name a word of each
# group of COCCI's "Keywords:" line (groups split by ";", words by ",").
cocci_files() {
	local group
	local -a patterns=()
	while IFS= read -r group; do
		patterns+=(-e "\\b($(printf '%s' "$group" | tr -d ' ' | tr ',' '|'))\\(")
	done < <(sed -n 's|^// Keywords: ||p' "$1" | tr ';' '\n')
	git -C "$2" grep -l -E --all-match "${patterns[@]}" -- '*.c' '*.h'
}

# cocci_report COCCI TREE OUT JOBS: spatch's report of COCCI on TREE's
# files that cocci_files names, each file a group of its own, into OUT;
# JOBS files at a time.
cocci_report() {
	cocci_files "$1" "$2" | sed 's/$/\n/' > "$RUN_TMP/cocci.groups"
	(cd "$2" && spatch -D report --sp-file "$1" --no-includes --include-headers \
		-j "$4" --file-groups "$RUN_TMP/cocci.groups") > "$3" 2> "$3.log" ||
		die "$E_INTERNAL" "spatch failed on $2: see $3.log"
}

# cocci_cached COCCI TREE OUT JOBS CACHE: cocci_report's OUT, kept in
# the directory CACHE under the state of TREE (its commit and changes)
# and COCCI's text, so that a tree searched already is not again.
cocci_cached() {
	local key cached
	key=$( { git -C "$2" rev-parse HEAD; git -C "$2" diff HEAD; cat "$1"; } |
		sha256sum | cut -c1-16)
	cached="$5/$key.txt"
	if [ -f "$cached" ]; then
		say "    the tree and $(basename "$1") as searched before: $cached"
		cp "$cached" "$3"
		return
	fi
	cocci_report "$1" "$2" "$3" "$4"
	mkdir -p "$5"
	cp "$3" "$cached.tmp"
	mv "$cached.tmp" "$cached"
}

# cmd_callers: the source and the series, the semantic patch's hits,
# Debian's config and the table held to docs/callers.md.
cmd_callers() {
	local version headers config status=0
	version=$(source_version "$SOURCE_KIND" "$SOURCE_LOCATOR")
	[ -n "$version" ] || die "$E_USAGE" "callers needs a Debian source (installed," \
		"or linux-source-X=VERSION) for Debian's config; $SOURCE_LABEL has none"
	prepare_results "$RESULTS"
	log_to "$RESULTS/runner.log"
	stages_to_tree
	stage "Debian's config of $version"
	headers=$(debian_headers "$version")
	config=$(debian_config "$WORK/downloads" "$headers")
	say "    $headers: $config"
	stage "Search the tree with $(basename "$CALLERS_COCCI")"
	cocci_cached "$CALLERS_COCCI" "$TREE" "$RESULTS/callers.txt" "$JOBS" "$WORK/callers"
	say "    $(wc -l < "$RESULTS/callers.txt") hits: $RESULTS/callers.txt"
	stage "Classify the hits ($CALLERS_CLASSES)"
	mmf_py callers --tree "$TREE" --config "$config" --classes "$CALLERS_CLASSES" \
		"$RESULTS/callers.txt" > "$RESULTS/callers.table" || status=$?
	indent < "$RESULTS/callers.table"
	stage_end
	case "$status" in
	0) ;;
	1) exit "$E_TESTS" ;;
	*) die "$E_INTERNAL" "mmfrozen.callers could not read its inputs" ;;
	esac
}
