# SPDX-License-Identifier: GPL-2.0
"""mmfrozen - the verdicts of the mm-frozen harness.

Each module reads what a run left (logs, tables, JSON) and decides; the
shell in lib/*.sh runs the stages and calls them through one entry
point, "python3 -m mmfrozen MODULE ..." (__main__.py: a crash exits 70,
never a verdict's status), with lib/ on PYTHONPATH:

  ktap        the KTAP of a guest run: a tree of results and counts
  verdict     verdict.json: the tests' verdict and how the run ended
  kernel_log  the kernel log lines that fail a run, test windows honoured
  kconfig     the config fragments' options checked in the final .config
  patches     why a patch does not apply: its files and failing hunks
  series      the series check: series.json, its table and its verdict;
              the compiler warnings of each build step
  matrix      the series checks of several sources in one table
  sources     the trees a matrix covers, from what apt offers
  checkout    checkout.json: the tree, the base and the patches a run ran on
  junit       JUnit XML of a results directory
  kcidb       KCIDB v5.3 JSON of a results directory
  upstream    the kernel's own suites, patched beside baseline
  summary     pages and refcount atomics per path, patched beside baseline
  bench       the bench's report, table, plot and guard
  coverage    the series' lines that the tests ran, by patch and hunk
  kbuild      an object's kbuild command, and the preprocessor branches
              it keeps

The tests are tests/unit/test_*.py, on fixtures from real runs in
tests/fixtures/.  Only the standard library is used, and Debian's
python3-jsonschema for kcidb.py's check of its files.
"""
