// Prints one closing line for the whole `npm test`: vitest's suites plus the
// browser/dev-server tests (node's test runner), as "Tests: N passed, N failed".
import { existsSync, readFileSync } from "node:fs";

let passed = 0;
let failed = 0;
let skipped = 0;

const vitest = ".test-reports/vitest.json";
if (existsSync(vitest)) {
  const report = JSON.parse(readFileSync(vitest, "utf8"));
  passed += report.numPassedTests;
  failed += report.numFailedTests;
  skipped += report.numPendingTests + (report.numTodoTests ?? 0);
}

for (const tap of [".test-reports/browser.tap", ".test-reports/protocols.tap"]) {
  if (!existsSync(tap)) {
    continue;
  }
  // Top-level test points (`--test-force-exit` may cut the TAP summary, so count the points).
  const points = readFileSync(tap, "utf8")
    .split("\n")
    .filter((line) => /^(not )?ok \d+/.test(line));
  for (const point of points) {
    if (/# (SKIP|TODO)/i.test(point)) {
      skipped += 1;
    } else if (point.startsWith("ok")) {
      passed += 1;
    } else {
      failed += 1;
    }
  }
}

console.log(`Tests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(failed > 0 ? 1 : 0);
