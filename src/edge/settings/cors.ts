/**
 * `CORS_ORIGINS` (read by `settings(env).corsOrigins`): the exact browser origins allowed on
 * `/v1/chat/*` and `/v1/ag-ui/*`, space-separated. The middleware is src/edge/protocols/cors.ts.
 */
import { ConfigError } from "../config-error";

export interface CorsEnv {
  CORS_ORIGINS?: string;
}

export function parseCorsOrigins(env: CorsEnv): Set<string> {
  const origins = new Set<string>();
  for (const entry of (env.CORS_ORIGINS ?? "").split(/\s+/).filter(Boolean)) {
    let origin: string;
    try {
      origin = new URL(entry).origin;
    } catch {
      origin = "null";
    }
    if (origin === "null" || origin !== entry.replace(/\/$/, "")) {
      throw new ConfigError(
        `CORS_ORIGINS must list exact origins such as https://app.example.com, got ${JSON.stringify(entry)}`,
      );
    }
    origins.add(origin);
  }
  return origins;
}
