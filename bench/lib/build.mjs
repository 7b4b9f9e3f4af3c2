/**
 * Imports the product from its TypeScript source: esbuild bundles an entry into
 * bench/.build/ (no network, no type-check), and the benchmark imports the result.
 */
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

export const BENCH = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
export const ROOT = path.dirname(BENCH);

/** Bundles `entry` (path relative to the repo root) and imports it. */
export async function importTs(entry, name, options = {}) {
  const outfile = path.join(BENCH, ".build", `${name}.mjs`);
  await build({
    entryPoints: [path.join(ROOT, entry)],
    outfile,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    // No source map: profiles are mapped to modules through esbuild's "// path" comments.
    logLevel: "error",
    // The product's own dependencies resolve from the root node_modules, else from bench's.
    nodePaths: [path.join(ROOT, "node_modules"), path.join(BENCH, "node_modules")],
    ...options,
  });
  return import(pathToFileURL(outfile).href);
}

/**
 * The kernel (src/core/index.ts): Node-compatible, no cloudflare imports. zod stays
 * external, so the kernel shares the one zod instance (bench's, the same version as the
 * root's) with the tool schemas, as in an application.
 */
export const importKernel = () => importTs("src/core/index.ts", "core", { external: ["zod"] });
