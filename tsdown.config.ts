/**
 * The published package: ESM JavaScript and .d.ts for `.` (the edge, for Workers),
 * `./core` (the kernel, any runtime), `./client` (the typed HTTP client, any
 * runtime) and `./cedar` (Cedar policies, for Workers: its engine's `.wasm` is copied beside
 * it and imported as a module, which wrangler bundles as CompiledWasm). Declarations are emitted by the repository's TypeScript 7 (tsgo).
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

const library = {
  entry: {
    index: "src/index.ts",
    core: "src/core/index.ts",
    client: "src/api-client/index.ts",
    cedar: "src/cedar/index.ts",
  },
  format: "esm",
  platform: "neutral",
  target: "es2022",
  outDir: "dist",
  clean: true,
  tsconfig: "tsconfig.build.json",
  dts: { tsgo: { path: getExePath() } },
  deps: { neverBundle: [/^cloudflare:/, /^node:/, /\.wasm$/] },
  // The Cedar engine (src/cedar/cedar_wasm_bg.wasm links to @cedar-policy/cedar-wasm's).
  copy: [
    { from: "node_modules/@cedar-policy/cedar-wasm/web/cedar_wasm_bg.wasm", to: "dist/cedar" },
  ],
  sourcemap: false,
} as const;

/** The `toolnexus-edge` bin (package.json "bin": sign-decision, verify-receipts): Node only, no declarations. */
const bin = {
  entry: { cli: "src/cli/bin.ts" },
  format: "esm",
  platform: "node",
  target: "node20",
  outDir: "dist",
  clean: false,
  tsconfig: "tsconfig.build.json",
  dts: false,
  sourcemap: false,
} as const;

export default defineConfig([library, bin]);
