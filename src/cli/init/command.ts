/**
 * `toolnexus-edge init <dir>`: writes a new worker project into `dir` (new, or an empty
 * folder): wrangler.toml with every binding and migration, .dev.vars with every secret
 * generated, an agent with an approval and a sub-agent, and a test (./project-files.ts).
 * A folder that holds anything is refused, so nothing of yours is ever overwritten.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { CliIo } from "../io";
import { projectFiles, type StarterVersions } from "./project-files";

export const INIT_USAGE = `usage: toolnexus-edge init <dir>
  writes a worker project into <dir> (a new or empty folder): wrangler.toml, .dev.vars with
  fresh secrets, src/ (an agent with an approval and a sub-agent), a test; then
  cd <dir> && npm install && npm test`;

export function init(args: readonly string[], io: CliIo): number {
  if (args.includes("--help") || args.includes("-h")) {
    io.out(INIT_USAGE);
    return 0;
  }
  const [target, ...extra] = args;
  if (target === undefined || extra.length > 0 || target.startsWith("-")) {
    io.err(`toolnexus-edge init: give one folder to create\n\n${INIT_USAGE}`);
    return 2;
  }
  const dir = path.resolve(io.cwd, target);
  if (existsSync(dir) && (!statSync(dir).isDirectory() || readdirSync(dir).length > 0)) {
    io.err(
      `toolnexus-edge init: ${dir} is not empty; init writes a new project only into a new or empty folder, and never overwrites a file`,
    );
    return 1;
  }
  const name = workerName(path.basename(dir));
  const files = projectFiles(name, ownVersions());
  for (const [file, text] of Object.entries(files)) {
    const full = path.join(dir, file);
    mkdirSync(path.dirname(full), { recursive: true });
    writeFileSync(full, text, file === ".dev.vars" ? { mode: 0o600 } : {});
  }
  const relative = path.relative(io.cwd, dir);
  const cd = relative.startsWith("..") ? dir : relative || ".";
  io.out(`created ${cd}/ (worker "${name}"): ${Object.keys(files).join(", ")}
.dev.vars holds freshly generated secrets for wrangler dev. Next:
  cd ${cd}
  npm install
  npm test       # starts wrangler dev, suspends a refund, approves it by signed webhook, sees it finish
  npm run dev    # http://localhost:8787`);
  return 0;
}

/** A worker name wrangler accepts (lowercase letters, digits, dashes), from the folder's. */
export function workerName(folder: string): string {
  const name = folder
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 54);
  return name || "my-agents";
}

/**
 * This package's version and its pinned dev tools (its own package.json, shipped in the
 * package), so a starter is built, checked and run with what this release was tested with.
 */
function ownVersions(): StarterVersions {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const file = path.join(dir, "package.json");
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, "utf8")) as {
        name?: string;
        version: string;
        devDependencies?: Record<string, string>;
      };
      if (pkg.name === "toolnexus-edge") {
        const dev = pkg.devDependencies ?? {};
        return {
          toolnexusEdge: pkg.version,
          wrangler: dev.wrangler ?? "^4",
          typescript: dev.typescript ?? "^5",
          workersTypes: dev["@cloudflare/workers-types"] ?? "^4",
        };
      }
    }
    const parent = path.dirname(dir);
    if (parent === dir) {
      throw new Error("toolnexus-edge init: cannot find the package's own package.json");
    }
    dir = parent;
  }
}
