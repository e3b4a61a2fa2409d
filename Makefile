# SPDX-License-Identifier: GPL-2.0
#
# mm-frozen: the frozen-pages series on Debian's linux-source-6.12, and the
# harness that tests it in a QEMU guest.  "make help" lists the targets.

RUNNER := ./runner.sh
# Extra options for runner.sh, e.g. make RUNNER_FLAGS="--accel tcg" run
RUNNER_FLAGS ?=

SHELL_SCRIPTS := runner.sh $(wildcard lib/*.sh) .ci/run guest-init/init guest-init/stage2.sh guest-init/shell.sh \
	guest-init/tests.sh guest-init/upstream.sh guest-init/bench.sh \
	$(wildcard selftests/mm-frozen/*.sh) \
	$(wildcard tests/*.sh tests/host/*.sh tests/host/data/*.sh tests/host/data/apt/* tests/host/data/qemu/* tests/host/data/make/* tracing/*.sh) \
	tests/data/workflow/apt-get

.PHONY: all help run baseline kernel initramfs boot shell clean check \
	check-full test-fast unit-tests shellcheck host-tests upstream caught callers \
	series series-check matrix bench

all: run

help:
	@echo 'mm-frozen targets:'
	@echo '  make / make run   apply patches/, build, boot the guest, run the tests'
	@echo '  make check        the test suite: the fast tests, shellcheck, the'
	@echo '                    host tests that boot a guest, patched and'
	@echo '                    baseline guest runs, hazards without the fix,'
	@echo '                    the kernel'"'"'s own suites, the bench guard and'
	@echo '                    the series check (what CI runs)'
	@echo '  make test-fast    the unit tests of the verdicts (lib/mmfrozen) and'
	@echo '                    the host tests that need no kernel: seconds'
	@echo '  make check-full   the same with the slow upstream suites (thp,'
	@echo '                    userfaultfd), the bisect build of every commit'
	@echo '                    of the series, the workflow'"'"'s glue, the'
	@echo '                    bench on a slower kernel, the target under KASAN,'
	@echo '                    the sanitizers'"'"' teeth, the mutants and'
	@echo '                    the coverage gate: about 100 minutes more'
	@echo '  make baseline     the same run on the unpatched kernel'
	@echo '  make kernel       stages up to the kernel build'
	@echo '  make initramfs    build the guest initramfs'
	@echo '  make boot         boot the built kernel and run the tests'
	@echo '  make shell        boot the built kernel to an interactive shell'
	@echo '  make upstream     the kernel'"'"'s own slab and mm suites, patched'
	@echo '                    and baseline side by side'
	@echo '  make caught       the hazard tests on the series without its'
	@echo '                    slab refcount fix: each must fail'
	@echo '  make callers      the callers in the tree that take a page reference'
	@echo '                    on memory that may come from kmalloc(), classified'
	@echo '                    (docs/callers.md), and whether Debian builds each'
	@echo '  make series       the series check: apply status, checkpatch and'
	@echo '                    build of each patch, then the run on the tip'
	@echo '  make series-check the series check on trees with a known verdict'
	@echo '  make matrix       the series check on each of SOURCES, one table'
	@echo '  make bench        what the frozen paths save: refcount atomics'
	@echo '                    counted, the cases timed under -icount, TCG'
	@echo '                    and KVM if it works; table, JSON and plot'
	@echo '  make shellcheck   shellcheck every script'
	@echo '  make unit-tests   python3 -m unittest: tests/unit/ on tests/fixtures/'
	@echo '  make host-tests   the harness'"'"'s own tests (tests/host/), all of them'
	@echo '  make clean        remove the work directory (see runner.sh --help)'
	@echo 'Options go to runner.sh through RUNNER_FLAGS, e.g.'
	@echo '  make run RUNNER_FLAGS="--work /tmp/mmf --timeout 1800"'
	@echo '  make run RUNNER_FLAGS="--drop 0014 --tests frozen_hazard_test"'
	@echo '  make check RUNNER_FLAGS="--work /tmp/mmf"   (every step, every host test)'
	@echo '  make series RUNNER_FLAGS="--source linux-source-6.12=6.12.107-1~deb12u1"'

run:
	$(RUNNER) $(RUNNER_FLAGS)

baseline:
	$(RUNNER) --baseline $(RUNNER_FLAGS)

kernel initramfs boot shell clean:
	$(RUNNER) $(RUNNER_FLAGS) $@

check:
	tests/check.sh $(RUNNER_FLAGS)

check-full:
	MMF_UPSTREAM=full MMF_CHECK_FULL=1 tests/check.sh $(RUNNER_FLAGS)

series:
	$(RUNNER) $(RUNNER_FLAGS) series

series-check:
	tests/expect-series.sh $(RUNNER_FLAGS)

# make matrix SOURCES="installed linux-source-6.12=6.12.107-1~deb12u1 linux-source-6.1"
SOURCES ?= installed
matrix:
	$(RUNNER) $(RUNNER_FLAGS) matrix $(SOURCES)

bench:
	$(RUNNER) $(RUNNER_FLAGS) bench

upstream:
	tests/upstream-suites.sh $(RUNNER_FLAGS)

caught:
	tests/expect-caught.sh $(RUNNER_FLAGS)

callers:
	$(RUNNER) $(RUNNER_FLAGS) callers

shellcheck:
	shellcheck $(SHELL_SCRIPTS)

unit-tests:
	python3 -m unittest discover -s tests/unit

test-fast: unit-tests
	tests/shell-functions.py --max-readers 25 --max-lines 40
	MMF_TEST_FLAGS="$(RUNNER_FLAGS)" tests/host/run.sh --fast

host-tests:
	MMF_TEST_FLAGS="$(RUNNER_FLAGS)" tests/host/run.sh
