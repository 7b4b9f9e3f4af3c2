#!/usr/bin/env node
/**
 * Every reference resolves (docs/architecture.md §1; `npm run lint:layout` runs it): in
 * README.md, docs/*.md and bench/README.md, and in the comments of src/, durable/, test/ and
 * scripts/, each file path names a file or folder that exists, each `<doc>.md §N` names a
 * section that doc has, and each `<doc> “Name”` (or `README, “Name”`, in straight quotes)
 * names a heading or a bold lead-in (`**Name.**`) of that doc — inside section N when one
 * is given.
 *
 * A path that starts at a top-level folder (`src/edge/agent.ts`, `durable/thread/`) or is a
 * root file (`wrangler.toml`) must exist from the repository root; a shorter one
 * (`drive/driver.ts`, `close-turn.ts`) must exist beside the citing file or be the end of a
 * tracked path, or be a file of an installed package (bench/README.md names zod's modules).
 * A git-ignored path (`dist/`, `.wrangler/`, `bench/.build/`) is what a build makes: it
 * counts as existing. Globs, URLs, method calls (`c.json(`) and `path/to/…` placeholders are
 * not references. Two kinds of citation point outside this repository and are not checked:
 * `SPEC §…` (the agent contract) and `../shared/…` (the team's shared folder beside it).
 *
 * `node scripts/check-references.mjs [files…]` checks the given files instead (for tests).
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "..");
const TOP = ["src", "durable", "test", "scripts", "docs", "bench", "examples", ".ci"];
const CODE = /\.(ts|mts|mjs|js|cjs)$/;
const EXTENSIONS = "ts|mts|mjs|js|cjs|md|toml|json|yaml|yml|tap|html|css";
const PATH = new RegExp(
  `(?<![\\w@/.:$<{*-])((?:\\.{1,2}/)?(?:[\\w.-]+/)*[\\w-][\\w.-]*\\.(?:${EXTENSIONS}))(?![\\w/*(-]|\\.\\w)`,
  "g",
);
const FOLDER = new RegExp(`(?<![\\w@/.:$-])((?:${TOP.join("|")})/(?:[\\w.-]+/)*)(?![\\w*{])`, "g");
const DOC = String.raw`((?:[\w.-]+/)*README(?:\.md)?|(?:[\w.-]+/)*[\w.-]+\.md)`;
const SECTION = new RegExp(String.raw`${DOC} §(\d+[a-z]?)(?:,? "([^"\n]{2,100})")?`, "g");
const NAMED = new RegExp(String.raw`${DOC},? "([^"\n]{2,100})"`, "g");

const tracked = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard"], {
  cwd: ROOT,
  encoding: "utf8",
})
  .split("\n")
  .filter(Boolean);
const trackedSet = new Set(tracked);

function defaultFiles() {
  return tracked.filter(
    (file) =>
      file === "README.md" ||
      file === "bench/README.md" ||
      /^docs\/[^/]+\.md$/.test(file) ||
      (/^(src|durable|test|scripts)\//.test(file) && CODE.test(file)),
  );
}

/**
 * The comments of a source file, each with the line it starts on. String and template
 * literals are stepped over (a path in a string is data, not a reference).
 */
function commentsOf(text) {
  const found = [];
  const lineAt = (index) => text.slice(0, index).split("\n").length;
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '"' || c === "'" || c === "`") {
      i += 1;
      while (i < text.length && text[i] !== c && !(c !== "`" && text[i] === "\n")) {
        i += text[i] === "\\" ? 2 : 1;
      }
      i += 1;
    } else if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      const stop = end === -1 ? text.length : end + 2;
      found.push({ text: text.slice(i, stop), line: lineAt(i) });
      i = stop;
    } else if (c === "/" && text[i + 1] === "/") {
      const end = text.indexOf("\n", i);
      const stop = end === -1 ? text.length : end;
      found.push({ text: text.slice(i, stop), line: lineAt(i) });
      i = stop;
    } else {
      i += 1;
    }
  }
  return found;
}

/** A markdown file's text without its fenced code blocks (examples, not references). */
function proseOf(text) {
  return [
    { text: text.replace(/^```[\s\S]*?^```/gm, (block) => block.replace(/[^\n]/g, " ")), line: 1 },
  ];
}

/** A path git ignores (made by a build); asked only of paths that resolve no other way. */
function ignored(relative) {
  try {
    execFileSync("git", ["check-ignore", "-q", relative], { cwd: ROOT });
    return true;
  } catch {
    return false;
  }
}

function exists(relative) {
  return trackedSet.has(relative) || existsSync(path.join(ROOT, relative));
}

let packages;
/** Installed package folders (the root's and bench/'s), for paths into a dependency. */
function packageDirs() {
  if (!packages) {
    packages = [];
    for (const modules of ["node_modules", "bench/node_modules"]) {
      const dir = path.join(ROOT, modules);
      if (!existsSync(dir)) {
        continue;
      }
      for (const entry of readdirSync(dir)) {
        const scoped = entry.startsWith("@");
        for (const name of scoped ? readdirSync(path.join(dir, entry)) : [entry]) {
          packages.push(path.join(dir, scoped ? `${entry}/${name}` : name));
        }
      }
    }
  }
  return packages;
}

function inPackage(token) {
  for (const base of ["node_modules", "bench/node_modules"]) {
    if (existsSync(path.join(ROOT, base, token))) {
      return true;
    }
  }
  return packageDirs().some((dir) =>
    ["", "dist", "dist/esm"].some((sub) => existsSync(path.join(dir, sub, token))),
  );
}

function resolvePath(token, citing) {
  const clean = token.replace(/^\.\//, "");
  if (token.startsWith("../") || token.startsWith("./")) {
    const relative = path.normalize(path.join(path.dirname(citing), token));
    return exists(relative) || ignored(relative);
  }
  if (TOP.some((top) => clean.startsWith(`${top}/`)) || !clean.includes("/")) {
    if (exists(clean)) {
      return true;
    }
    if (TOP.some((top) => clean.startsWith(`${top}/`))) {
      return ignored(clean);
    }
  }
  if (exists(path.join(path.dirname(citing), clean))) {
    return true;
  }
  return (
    tracked.some((file) => file === clean || file.endsWith(`/${clean}`)) ||
    inPackage(clean) ||
    ignored(clean)
  );
}

function docPath(cited, citing) {
  // `README` alone is the repository's; `bench/README` is bench/README.md.
  const name = cited.endsWith("README") ? `${cited}.md` : cited;
  for (const candidate of [name, path.join(path.dirname(citing), name), path.join("docs", name)]) {
    const normal = path.normalize(candidate);
    if (trackedSet.has(normal)) {
      return normal;
    }
  }
  return undefined;
}

const sections = new Map();
/** A doc's numbered sections: `## §6 …` (docs/architecture.md) or `## 6. …` (bench/README.md). */
function sectionsOf(doc) {
  if (!sections.has(doc)) {
    const text = readFileSync(path.join(ROOT, doc), "utf8");
    const found = new Map();
    const headings = [...text.matchAll(/^##\s+(?:§(\d+[a-z]?)|(\d+[a-z]?)\.)\s/gm)];
    headings.forEach((match, i) => {
      const end = headings[i + 1]?.index ?? text.length;
      found.set(match[1] ?? match[2], text.slice(match.index, end));
    });
    sections.set(doc, { text, found });
  }
  return sections.get(doc);
}

/** A heading or a bold lead-in whose text starts with `name`. */
function names(text, name) {
  const wanted = name.toLowerCase();
  for (const match of text.matchAll(/^#+\s+(.+)$|\*\*([^*\n]+)\*\*/gm)) {
    const said = (match[1] ?? match[2])
      .replace(/`/g, "")
      .replace(/^§?\d+[a-z]?\.?\s+/, "")
      .trim()
      .toLowerCase();
    if (said === wanted || said.startsWith(wanted)) {
      return true;
    }
  }
  return false;
}

export function checkFile(file) {
  const problems = [];
  const text = readFileSync(path.join(ROOT, file), "utf8");
  const parts = CODE.test(file) ? commentsOf(text) : proseOf(text);
  for (const part of parts) {
    const at = (index) => `${file}:${part.line + part.text.slice(0, index).split("\n").length - 1}`;
    for (const match of part.text.matchAll(PATH)) {
      const token = match[1];
      if (
        /^\d/.test(token) ||
        token.startsWith("node_modules/") ||
        token.startsWith("../shared/") ||
        token.startsWith("path/to/")
      ) {
        continue;
      }
      if (!resolvePath(token, file)) {
        problems.push(`${at(match.index)}: ${token} does not exist`);
      }
    }
    for (const match of part.text.matchAll(FOLDER)) {
      const folder = match[1].replace(/\/$/, "");
      const full = path.join(ROOT, folder);
      if (!((existsSync(full) && statSync(full).isDirectory()) || ignored(match[1]))) {
        problems.push(`${at(match.index)}: folder ${match[1]} does not exist`);
      }
    }
    for (const match of part.text.matchAll(SECTION)) {
      const [, name, number, title] = match;
      const doc = docPath(name, file);
      if (!doc) {
        problems.push(`${at(match.index)}: ${name} §${number}: no such document`);
        continue;
      }
      const section = sectionsOf(doc).found.get(number);
      if (!section) {
        problems.push(`${at(match.index)}: ${doc} has no §${number}`);
      } else if (title && !names(section, title)) {
        problems.push(`${at(match.index)}: ${doc} §${number} has no "${title}"`);
      }
    }
    for (const match of part.text.matchAll(NAMED)) {
      const [, name, title] = match;
      const doc = docPath(name, file);
      if (!doc) {
        problems.push(`${at(match.index)}: ${name} "${title}": no such document`);
      } else if (!names(sectionsOf(doc).text, title)) {
        problems.push(`${at(match.index)}: ${doc} has no section "${title}"`);
      }
    }
  }
  return problems;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const given = process.argv.slice(2).map((file) => path.relative(ROOT, path.resolve(file)));
  const files = given.length > 0 ? given : defaultFiles();
  const problems = files.flatMap(checkFile);
  if (problems.length > 0) {
    console.error(
      `check-references: ${problems.length} stale reference(s):\n  ${problems.join("\n  ")}`,
    );
    process.exit(1);
  }
  console.log(`check-references: every path and section cited in ${files.length} files exists`);
}
