#!/usr/bin/env node
/**
 * `npm run lint` (after biome): writes the OpenAPI document exactly as GET /openapi.json
 * serves it (src/edge/http/openapi/document.ts, bundled with esbuild in memory: no worker, no network)
 * to .wrangler/openapi.json and lints it with Redocly's `recommended` rules (redocly.yaml;
 * the few problems accepted on purpose, each with its reason, in .redocly.lint-ignore.yaml
 * beside it). Any other error or warning fails the run.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { build } from "esbuild";
import { ROOT } from "../lib/dev-vars.mjs";

const OUT = path.join(ROOT, ".wrangler", "openapi.json");

/** The served document, for the base a local `wrangler dev` answers at. */
export async function openApiDocument(base = "http://localhost:8787") {
  const bundled = await build({
    entryPoints: [path.join(ROOT, "src/edge/http/openapi/document.ts")],
    bundle: true,
    format: "esm",
    platform: "neutral",
    write: false,
    logLevel: "silent",
  });
  const code = bundled.outputFiles[0].text;
  const module = await import(
    `data:text/javascript;base64,${Buffer.from(code).toString("base64")}`
  );
  return module.servedOpenApiDocument(base);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  mkdirSync(path.dirname(OUT), { recursive: true });
  writeFileSync(OUT, `${JSON.stringify(await openApiDocument(), null, 2)}\n`);
  try {
    execFileSync(
      process.execPath,
      [
        path.join(ROOT, "node_modules/@redocly/cli/bin/cli.js"),
        "lint",
        OUT,
        "--config",
        path.join(ROOT, "scripts/openapi/redocly.yaml"),
        "--max-problems",
        "200",
      ],
      {
        stdio: "inherit",
        env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
      },
    );
  } catch {
    console.error(
      "openapi-lint: the OpenAPI document (src/edge/http/openapi/document.ts) fails redocly lint",
    );
    process.exit(1);
  }
}
