/**
 * Our MCP client (src/core/mcp, through `createToolkit`) as the client under test of the
 * official conformance suite (@modelcontextprotocol/conformance): the suite starts a scenario's
 * server on localhost and runs this with the server's URL as the last argument, the scenario's
 * name in MCP_CONFORMANCE_SCENARIO and any extra context (pre-registered client credentials) as
 * JSON in MCP_CONFORMANCE_CONTEXT. test/protocols/mcp-conformance.test.mjs bundles it with
 * esbuild and runs the scenarios.
 *
 * What a person would do is done here by code: an elicitation is accepted with the form's
 * defaults; a sign-in (`kind: "authorization"`) is consented by following the authorization
 * URL, whose redirect to our (never served) callback carries the code.
 */
import { createToolkit, isPending, pendingOf, type Request, type Toolkit } from "../../src/core";

const REDIRECT = "http://127.0.0.1:9/oauth/callback";
const url = process.argv[process.argv.length - 1] as string;
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || "{}") as Record<string, unknown>;

/** The authorization server's redirect back to us, with the code: the "person" consents at once. */
async function consent(authorizationUrl: string): Promise<string> {
  const response = await fetch(authorizationUrl, { redirect: "manual" });
  const location = response.headers.get("location");
  await response.body?.cancel();
  if (!location) {
    throw new Error(`authorize answered ${response.status} without a redirect`);
  }
  return new URL(location, authorizationUrl).href;
}

/** Runs a tool; each sign-in it asks for (first, or a step-up) is consented and the call re-run. */
async function call(toolkit: Toolkit, name: string, args: unknown): Promise<void> {
  let result = await toolkit.execute(name, args, { callId: `conformance-${name}` });
  for (let round = 0; round < 3 && isPending(result); round++) {
    const request = pendingOf(result) as Request;
    if (request.kind !== "authorization" || !request.url) {
      throw new Error(`${name} asked ${request.kind}: ${request.prompt}`);
    }
    const callbackUrl = await consent(request.url);
    result = await toolkit.execute(name, args, {
      callId: `conformance-${name}`,
      answer: { id: request.id, ok: true, data: { callbackUrl } },
      answered: request,
    });
  }
  console.log(`${name}: ${result.isError ? "error " : ""}${result.output.slice(0, 200)}`);
}

const ARGS: Record<string, unknown> = { add_numbers: { a: 5, b: 3 } };

async function main(): Promise<void> {
  const oauth = scenario.startsWith("auth/")
    ? {
        redirectUrl: REDIRECT,
        ...(typeof context.client_id === "string" ? { clientId: context.client_id } : {}),
        ...(typeof context.client_secret === "string"
          ? { clientSecret: context.client_secret }
          : {}),
      }
    : undefined;
  const toolkit = await createToolkit({
    mcp: { mcpServers: { s: { url, timeout: 20_000, ...(oauth ? { oauth } : {}) } } },
    // A person who accepts every form as offered (its defaults fill the rest, SEP-1034).
    waitFor: async (request) => ({ id: request.id, ok: true, data: {} }),
  });
  try {
    const status = toolkit.mcpStatus().s;
    console.log(`status: ${status?.status}${status?.reason ? ` (${status.reason})` : ""}`);
    if (status?.status === "needs_authorization") {
      await call(toolkit, "s_sign_in", {});
    }
    const served = toolkit.tools().filter((tool) => tool.source === "mcp:s");
    for (const tool of served) {
      const original = tool.name.replace(/^s_/, "");
      await call(toolkit, tool.name, ARGS[original] ?? {});
    }
  } finally {
    await toolkit.close();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
