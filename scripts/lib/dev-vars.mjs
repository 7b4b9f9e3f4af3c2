/**
 * The local dev values `wrangler dev` uses: `.dev.vars`, created from the committed
 * `.dev.vars.example` when missing, so `npm start` needs no keys.
 */
import { constants, copyFileSync, existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import path from "node:path";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const DEV_VARS = path.join(ROOT, ".dev.vars");
export const DEV_VARS_EXAMPLE = path.join(ROOT, ".dev.vars.example");

/** Copies `.dev.vars.example` to `.dev.vars` unless it exists; true when it created the file. */
export function ensureDevVars() {
  try {
    copyFileSync(DEV_VARS_EXAMPLE, DEV_VARS, constants.COPYFILE_EXCL);
    return true;
  } catch (error) {
    if (error.code === "EEXIST") {
      return false;
    }
    throw error;
  }
}

/**
 * Reads the variables as wrangler does: `.dev.vars`, else `.dev.vars.example`.
 * A small dotenv subset: `KEY=value`, optional quotes, `#` comments.
 */
export function readDevVars() {
  const file = existsSync(DEV_VARS) ? DEV_VARS : DEV_VARS_EXAMPLE;
  return { file, vars: parseDotenv(readFileSync(file, "utf8")) };
}

export function parseDotenv(text) {
  const vars = {};
  for (const line of text.split(/\r?\n/)) {
    const match = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (!match) {
      continue;
    }
    let value = match[2].trim();
    const quote = value[0];
    if ((quote === '"' || quote === "'") && value.indexOf(quote, 1) > 0) {
      value = value.slice(1, value.indexOf(quote, 1));
    } else {
      value = value.replace(/\s+#.*$/, "");
    }
    vars[match[1]] = value;
  }
  return vars;
}

/** The two values a client of the dev server needs, with a clear error when one is missing. */
export function devCredentials() {
  const { file, vars } = readDevVars();
  for (const name of ["API_TOKEN", "WEBHOOK_SECRET"]) {
    if (!vars[name]) {
      throw new Error(`${name} is not set in ${path.relative(process.cwd(), file) || file}`);
    }
  }
  return {
    file,
    apiToken: vars.API_TOKEN,
    webhookSecrets: vars.WEBHOOK_SECRET.split(/\s+/).filter(Boolean),
    vars,
  };
}
