# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# source.sh - the Debian packages, and the tree the series goes on: the
# installed linux-source-6.12 or what --source names, unpacked once into
# a git repository whose base commit is tagged $BASE_TAG, and worktrees
# of it.

# check_packages LOG-DIR NO-INSTALL: the Debian packages the harness
# needs, installed with apt-get when missing (as root, unless NO-INSTALL
# is 1), and nothing they merely recommend: what the harness uses is on
# the list itself.
check_packages() {
	local log_dir=$1 no_install=$2 missing=() pkg
	for pkg in "${REQUIRED_PACKAGES[@]}"; do
		dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null |
			grep -q 'install ok installed' || missing+=("$pkg")
	done
	if [ ${#missing[@]} -eq 0 ]; then
		say "    all ${#REQUIRED_PACKAGES[@]} packages present"
		return
	fi
	say "    missing: ${missing[*]}"
	if [ "$no_install" = 1 ] || [ "$(id -u)" != 0 ]; then
		die "$E_PACKAGES" "missing Debian packages; install them with:" \
			"apt-get install ${missing[*]}"
	fi
	mkdir -p "$log_dir"
	say "    installing with apt-get (log: $log_dir/apt.log)"
	if ! { apt-get update &&
		DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
			"${missing[@]}"; } \
		> "$log_dir/apt.log" 2>&1; then
		tail -n 20 "$log_dir/apt.log" >&2
		die "$E_PACKAGES" "apt-get could not install: ${missing[*]}"
	fi
}

# ---------------------------------------------------------------- --source

# resolve_source SPEC WORK: what SPEC names, five lines: its kind
# (installed, deb, tarball, git), its label, its locator (PACKAGE=VERSION,
# the tarball's path, the repository's path), the commit (git), and its
# directory, for its trees, builds and results (WORK itself for the
# installed source, else WORK/sources/NAME):
#   "" or installed     the installed $SOURCE_PACKAGE
#   PACKAGE[=VERSION]   a Debian linux-source package (its candidate
#                       version without =), fetched with apt-get download
#                       and unpacked, never installed
#   PATH                a source tarball
#   PATH@REF            a commit of a local git repository
resolve_source() {
	local spec=$1 kind locator commit='' name package version
	case "$spec" in
	''|installed)
		printf '%s\n' installed "$SOURCE_PACKAGE (installed)" "$SOURCE_TARBALL" '' "$2"
		return
		;;
	linux-source-*)
		kind=deb package=${spec%%=*} version=${spec#*=}
		[ "$version" != "$spec" ] || version=$(candidate_version "$package")
		case "$version" in
		''|'(none)') die "$E_USAGE" "--source $spec: apt knows no version of $package" ;;
		esac
		apt-cache madison "$package" | mmf_py sources offers "$package" "$version" ||
			die "$E_USAGE" "--source $spec: apt knows no version $version of" \
				"$package (apt-cache madison $package lists them)"
		locator="$package=$version" name="${package}_$version"
		;;
	*@*)
		[ -d "${spec%@*}" ] || die "$E_USAGE" "--source $spec: ${spec%@*} is not a directory"
		kind=git locator=$(cd "${spec%@*}" && pwd)
		commit=$(git -C "$locator" rev-parse -q --verify "${spec##*@}^{commit}" 2>/dev/null) ||
			die "$E_USAGE" "--source $spec: ${spec##*@} is not a commit of $locator"
		name="git-$(basename "$locator")-${spec##*@}"
		;;
	*)
		[ -f "$spec" ] || die "$E_USAGE" "--source $spec: not a linux-source package," \
			"a tarball or PATH@REF of a git repository"
		kind=tarball locator=$(realpath "$spec")
		name=$(basename "$locator")
		name=${name%.tar*}
		;;
	esac
	printf '%s\n' "$kind" "$spec" "$locator" "$commit" \
		"$2/sources/$(mmf_py sources name "$name")"
}

# candidate_version PACKAGE: the version apt would install; "(none)" or
# nothing when it knows none.
candidate_version() {
	apt-cache policy "$1" 2>/dev/null | awk '$1 == "Candidate:" { print $2 }'
}

# installed_version: the installed $SOURCE_PACKAGE's version, else the
# candidate, which "runner.sh deps" would install.
installed_version() {
	local version
	version=$(dpkg-query -W -f='${Version}' "$SOURCE_PACKAGE" 2>/dev/null) || version=''
	printf '%s\n' "${version:-$(candidate_version "$SOURCE_PACKAGE")}"
}

# cmd_sources: the trees a matrix covers: the installed source, every
# other version of it that apt offers, and the newest of each of
# OTHER_SOURCE_PACKAGES (mmfrozen.sources); --json for a CI matrix.
cmd_sources() {
	local installed
	installed=$(installed_version)
	case "$installed" in
	''|'(none)') die "$E_PACKAGES" "apt knows no version of $SOURCE_PACKAGE (apt-get update?)" ;;
	esac
	apt-cache madison "$SOURCE_PACKAGE" "${OTHER_SOURCE_PACKAGES[@]}" |
		mmf_py sources --installed "$SOURCE_PACKAGE=$installed" --every "$SOURCE_PACKAGE" \
			--newest "${OTHER_SOURCE_PACKAGES[@]}" ${JSON:+--json} ||
		die "$E_PACKAGES" "apt offers no $SOURCE_PACKAGE (apt-get update?)"
}

# source_id KIND LOCATOR COMMIT: what the base commit's tag records; a
# source whose id changed (apt installed another linux-source, the
# tarball or the ref moved) is unpacked again.
source_id() {
	case "$1" in
	installed) printf '%s %s\n' "$SOURCE_PACKAGE" "$(dpkg-query -W -f='${Version}' "$SOURCE_PACKAGE")" ;;
	deb) printf '%s %s\n' "${2%%=*}" "${2#*=}" ;;
	tarball) printf 'tarball %s %s\n' "$2" "$(stat -c '%s %Y' "$2")" ;;
	git) printf 'git %s %s\n' "$2" "$3" ;;
	esac
}

# unpacked_source_id REPO: the source id that REPO's base tag holds
# (source_id's, when it was unpacked); nothing if it has none.
unpacked_source_id() {
	git -C "$1" tag -l --format='%(contents:subject)' "$BASE_TAG" 2>/dev/null
}

# download_deb DIR PACKAGE=VERSION: the package downloaded into DIR (and
# kept there); prints its file.
download_deb() {
	local dir=$1 package=${2%%=*} version=${2#*=} deb
	mkdir -p "$dir"
	deb=$(find "$dir" -maxdepth 1 -name "${package}_${version//:/%3a}_*.deb" | head -n 1)
	if [ -z "$deb" ]; then
		say "    apt-get download $2 (log: $dir/download.log)" >&2
		if ! (cd "$dir" && apt-get download "$2") > "$dir/download.log" 2>&1; then
			tail -n 5 "$dir/download.log" >&2
			die "$E_PACKAGES" "apt-get download $2 failed"
		fi
		deb=$(find "$dir" -maxdepth 1 -name "${package}_${version//:/%3a}_*.deb" | head -n 1)
	fi
	printf '%s\n' "$deb"
}

# fetch_deb DIR PACKAGE=VERSION: the package downloaded into DIR,
# unpacked into DIR/unpacked; prints the kernel tarball.
fetch_deb() {
	local dir=$1 deb tarball
	deb=$(download_deb "$dir" "$2")
	rm -rf "$dir/unpacked"
	dpkg-deb -x "$deb" "$dir/unpacked"
	tarball=$(find "$dir/unpacked/usr/src" -maxdepth 1 -name 'linux-source-*.tar.*' | head -n 1)
	[ -n "$tarball" ] || die "$E_PACKAGES" "$deb holds no linux-source tarball"
	printf '%s\n' "$tarball"
}

# import_tarball DIR TARBALL ID: the tarball's tree as the first commit of
# a new git repository in DIR.  The commit's dates are fixed, so that a
# tarball gives the same commit in every work directory: the base commit
# that a CI job reports is the one every other job reports for it.
import_tarball() {
	[ -r "$2" ] || die "$E_PACKAGES" "$2 not found"
	say "    unpacking $2"
	tar -xf "$2" -C "$1" --strip-components=1
	# Debian's tarball ships a .gitignore that ignores the whole top
	# level: force the add so the base commit holds every file.
	git -C "$1" init -q -b "$BASE_TAG-branch"
	git -C "$1" add -f -A .
	GIT_AUTHOR_DATE='@0 +0000' GIT_COMMITTER_DATE='@0 +0000' \
		git -C "$1" "${GIT_IDENT[@]}" commit -q -m "$3 (pristine)"
}

# import_git DIR REPOSITORY COMMIT: a clone of the user's repository that
# borrows its objects (git clone --shared) and writes nothing to it.
import_git() {
	say "    git clone --shared $2, checkout $3"
	git clone -q --shared --no-checkout --no-tags "$2" "$1"
	git -C "$1" checkout -q --detach "$3"
}

# prepare_source REPO WORK KIND LOCATOR COMMIT: the pristine tree of the
# source (resolve_source's KIND, LOCATOR and COMMIT), as a git repository
# whose base commit is tagged $BASE_TAG with the source's id.  A 3-way
# merge of a patch needs the blobs it was made on: a source other than
# the installed one borrows the installed source's objects, when they
# are there.
prepare_source() {
	local repo=$1 work=$2 kind=$3 locator=$4 commit=$5 id tmp tarball
	local default_objects="$work/linux/.git/objects"
	id=$(source_id "$kind" "$locator" "$commit")
	if [ -d "$repo/.git" ] &&
	   [ "$(unpacked_source_id "$repo")" = "$id" ]; then
		say "    $repo: $id (already unpacked)"
		return
	fi
	if [ -e "$repo" ]; then
		say "    $repo holds another source: replacing it"
		rm -rf "$repo" "$(dirname "$repo")"/linux-*
	fi
	mkdir -p "$(dirname "$repo")"
	tmp=$(mktemp -d "$(dirname "$repo")/unpack.XXXXXX")
	case "$kind" in
	deb)
		tarball=$(fetch_deb "$work/downloads" "$locator")
		import_tarball "$tmp" "$tarball" "$id"
		rm -rf "$work/downloads/unpacked"
		;;
	git) import_git "$tmp" "$locator" "$commit" ;;
	*) import_tarball "$tmp" "$locator" "$id" ;;
	esac
	git -C "$tmp" "${GIT_IDENT[@]}" tag -f -a -m "$id" "$BASE_TAG" >/dev/null
	if [ "$kind" != installed ] && [ -d "$default_objects" ]; then
		printf '%s\n' "$default_objects" >> "$tmp/.git/objects/info/alternates"
	fi
	mv "$tmp" "$repo"
	say "    $repo: $id"
}

# record_checkout RESULTS LABEL RUN-NAME REPO DIR PATCH...:
# RESULTS/checkout.json (mmfrozen.checkout): the tree LABEL, its base
# commit in REPO, the run's name, the PATCHes of DIR applied (none for
# the baseline) and the harness's revision, for the reports read without
# the tree (a merged matrix, KCIDB).
record_checkout() {
	mmf_py checkout "$1" --tree "$2" --variant "$3" \
		--source-id "$(unpacked_source_id "$4")" \
		--base-commit "$(git -C "$4" rev-parse -q --verify "$BASE_TAG^{commit}" 2>/dev/null)" \
		--harness "$(git -C "$MMF_ROOT" describe --always --dirty 2>/dev/null)" \
		--patches "$5" "${@:6}"
}

# checkout_worktree REPO DIR COMMIT: DIR as a worktree of REPO, detached
# at COMMIT.  An existing one is moved, not recreated, so the build
# directory inside it stays and rebuilds only what changed.
checkout_worktree() {
	local repo=$1 dir=$2 commit=$3
	if git -C "$dir" rev-parse -q --verify HEAD >/dev/null 2>&1; then
		git -C "$dir" checkout -q -f --detach "$commit"
		return
	fi
	rm -rf "$dir"
	git -C "$repo" worktree prune
	git -C "$repo" worktree add -q --detach "$dir" "$commit"
	say "    created worktree $dir at $(git -C "$dir" describe --always --tags)"
}
