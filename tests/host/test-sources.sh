#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "runner.sh sources" lists the trees a matrix covers from what apt
# offers, played by a stand-in apt-cache and dpkg-query
# (tests/host/data/apt/) on the madison output kept as a fixture: the
# installed tree first for its own version, or apt's candidate when
# linux-source-6.12 is not installed yet; every other 6.12 version; the
# newest 6.1; as lines, and as JSON that a CI matrix reads.
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

export PATH="$MMF_ROOT/tests/host/data/apt:$PATH"
export FAKE_MADISON="$MMF_ROOT/tests/fixtures/sources/madison.txt"

# expect_sources INSTALLED SPEC...: with INSTALLED installed ("" for
# none), runner.sh sources prints the SPECs, and --json the same.
expect_sources() {
	local expected
	export FAKE_INSTALLED=$1
	shift
	expected=$(printf '%s\n' "$@")
	run_runner sources
	expect_status 0
	[ "$(cat "$TMP/out")" = "$expected" ] || fail "sources with '$FAKE_INSTALLED' installed"
	run_runner sources --json
	expect_status 0
	[ "$(jq -r '.[].spec' "$TMP/out")" = "$expected" ] || fail "sources --json: not the same trees"
}

others=(linux-source-6.12=6.12.117-1~deb12u1 linux-source-6.12=6.12.115-2~deb12u1
	linux-source-6.12=6.12.113-1~deb12u1 linux-source-6.12=6.12.111-1~deb12u1
	linux-source-6.12=6.12.107-1~deb12u1)
expect_sources '' installed "${others[@]}" linux-source-6.1=6.1.192-3
[ "$(jq -r '.[0].version' "$TMP/out")" = 6.12.118-1~deb12u1 ] || fail "installed: not the candidate's version"
expect_sources 6.12.113-1~deb12u1 installed linux-source-6.12=6.12.118-1~deb12u1 \
	"${others[@]:0:2}" "${others[@]:3}" linux-source-6.1=6.1.192-3
[ "$(jq -r '.[0].version' "$TMP/out")" = 6.12.113-1~deb12u1 ] || fail "installed: not its own version"

FAKE_MADISON=/dev/null FAKE_INSTALLED='' run_runner sources
expect_status 3
expect_text 'apt knows no version of linux-source-6.12'
echo "sources: $((${#others[@]} + 2)) trees from the fixture, installed or not"
