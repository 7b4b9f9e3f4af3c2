import type { Context, InputSchema, Tool, ToolResult } from "../types";
import { argsValidator, toJsonSchema } from "../schema";
import { expandEnv, type EnvLike } from "../env";
import { errorMessage, excerpt } from "../errors";

export interface HttpToolOptions {
  name: string;
  description: string;
  method?: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** `{placeholder}`s are replaced by URL-encoded arguments of the same name. */
  url: string;
  /** Values may contain `${ENV}` references, expanded at call time. */
  headers?: Record<string, string>;
  inputSchema?: InputSchema;
  env?: EnvLike;
  fetch?: typeof fetch;
}

/**
 * A tool that is one HTTP call. Arguments not used by URL placeholders go in the
 * query string (GET/DELETE) or as a JSON body (other methods).
 * @example
 * httpTool({ name: "get_issue", description: "Fetch an issue", method: "GET",
 *   url: "https://api.example.com/issues/{id}", headers: { authorization: "Bearer ${API_KEY}" },
 *   inputSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] } })
 */
export function httpTool(options: HttpToolOptions): Tool {
  const method = options.method ?? "GET";
  const schema = options.inputSchema ?? { type: "object", properties: {} };
  const validate = argsValidator(schema);
  return {
    name: options.name,
    description: options.description,
    inputSchema: toJsonSchema(schema),
    source: "http",
    async execute(rawArgs: unknown, ctx: Context = {}): Promise<ToolResult> {
      const checked = validate(rawArgs ?? {});
      if (!checked.ok) {
        return {
          output: `invalid arguments for ${options.name}:\n- ${checked.problems.join("\n- ")}`,
          isError: true,
        };
      }
      const args = { ...(checked.value as Record<string, unknown>) };
      let request: Request;
      try {
        request = buildRequest(options, args, { method, env: { ...ctx.env, ...options.env } });
      } catch (error) {
        return { output: `${options.name}: ${errorMessage(error)}`, isError: true };
      }
      try {
        const response = await (options.fetch ?? fetch)(request, { signal: ctx.signal });
        const body = await response.text();
        if (!response.ok) {
          return { output: `HTTP ${response.status}: ${excerpt(body, 2000)}`, isError: true };
        }
        return { output: body, isError: false };
      } catch (error) {
        return { output: `${options.name} request failed: ${errorMessage(error)}`, isError: true };
      }
    },
  };
}

/** `args` is consumed: what fills the URL's placeholders is taken out, the rest is the query or body. */
function buildRequest(
  options: HttpToolOptions,
  args: Record<string, unknown>,
  { method, env }: { method: string; env: EnvLike },
): Request {
  const url = new URL(
    options.url.replace(/\{([A-Za-z0-9_]+)\}/g, (_, key: string) => {
      if (!(key in args)) {
        throw new Error(`missing argument "${key}" for the URL`);
      }
      const value = args[key];
      delete args[key];
      return encodeURIComponent(String(value));
    }),
  );
  const headers = new Headers();
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    headers.set(name, expandEnv(value, env));
  }
  let body: string | undefined;
  if (method === "GET" || method === "DELETE") {
    for (const [key, value] of Object.entries(args)) {
      url.searchParams.set(key, typeof value === "string" ? value : JSON.stringify(value));
    }
  } else {
    body = JSON.stringify(args);
    if (!headers.has("content-type")) {
      headers.set("content-type", "application/json");
    }
  }
  return new Request(url, { method, headers, body });
}
