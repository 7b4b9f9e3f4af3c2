/**
 * The published package: ESM JavaScript and .d.ts for `.` (the edge, for Workers),
 * `./core` (the kernel, any runtime) and `./client` (the typed HTTP client, any
 * runtime). Declarations are emitted by the repository's TypeScript 7 (tsgo).
 */
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { defineConfig } from "tsdown";

// TypeScript 7 exports no JS API; its package locates its native compiler (not in "exports").
const typescript = path.dirname(createRequire(import.meta.url).resolve("typescript/package.json"));
const { default: getExePath } = (await import(
  pathToFileURL(path.join(typescript, "lib/getExePath.js")).href
)) as { default: () => string };

export default defineConfig({
  entry: {
    index: "src/index.ts",
    core: "src/core/index.ts",
    client: "src/api-client/index.ts",
    // The `toolnexus-edge` bin (Node): `sign-decision`.
    cli: "src/cli/bin.ts",
  },
  format: "esm",
  platform: "neutral",
  target: "es2022",
  outDir: "dist",
  clean: true,
  tsconfig: "tsconfig.build.json",
  dts: { tsgo: { path: getExePath() } },
  deps: { neverBundle: [/^cloudflare:/, /^node:/] },
  sourcemap: false,
});
