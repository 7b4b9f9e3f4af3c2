/**
 * The tree's shape, checked in `npm run lint` (docs/architecture.md §1): no source folder
 * holds more than 12 files (split it along its seams), and no hand-written source file
 * passes 400 lines. Import cycles are checked beside this by dpdm (type-only imports
 * included), which `npm run lint:layout` runs first.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "..");
const MAX_FILES_PER_FOLDER = 12;
const MAX_LINES = 400;
const problems = [];

function walk(dir) {
  const entries = readdirSync(dir);
  const files = entries.filter(
    (e) => /\.(ts|mts|mjs)$/.test(e) && statSync(path.join(dir, e)).isFile(),
  );
  if (files.length > MAX_FILES_PER_FOLDER) {
    problems.push(
      `${path.relative(ROOT, dir)}/ holds ${files.length} source files (at most ${MAX_FILES_PER_FOLDER})`,
    );
  }
  for (const file of files) {
    const lines = readFileSync(path.join(dir, file), "utf8").split("\n").length - 1;
    if (lines > MAX_LINES) {
      problems.push(
        `${path.relative(ROOT, path.join(dir, file))} has ${lines} lines (at most ${MAX_LINES})`,
      );
    }
  }
  for (const entry of entries) {
    if (statSync(path.join(dir, entry)).isDirectory()) {
      walk(path.join(dir, entry));
    }
  }
}

for (const top of ["src", "durable"]) {
  walk(path.join(ROOT, top));
}
if (problems.length > 0) {
  console.error(`check-layout: ${problems.length} problem(s):\n  ${problems.join("\n  ")}`);
  process.exit(1);
}
console.log("check-layout: folders and files within their sizes");
