/**
 * Every operation of /openapi.json has a unique operationId and says how it is secured
 * (`security: []` for open routes), and POST /approve/{token} lists its 403. The whole
 * document is linted with Redocly's recommended rules by `npm run lint`
 * (scripts/openapi/lint.mjs); this test keeps the two rules above from needing that run.
 */
import { describe, expect, it } from "vitest";
import { SELF } from "cloudflare:test";
import { BASE } from "../helpers/edge";

type Operation = {
  operationId?: string;
  security?: unknown[];
  responses: Record<string, unknown>;
  callbacks?: Record<string, Record<string, Record<string, Operation>>>;
};

async function operations() {
  const document = (await (await SELF.fetch(`${BASE}/openapi.json`)).json()) as {
    paths: Record<string, Record<string, Operation>>;
  };
  const all: Array<{ where: string; operation: Operation }> = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      all.push({ where: `${method.toUpperCase()} ${path}`, operation });
      for (const [name, callback] of Object.entries(operation.callbacks ?? {})) {
        for (const [expression, callbackItem] of Object.entries(callback)) {
          for (const [callbackMethod, callbackOperation] of Object.entries(callbackItem)) {
            all.push({
              where: `${name} ${callbackMethod.toUpperCase()} ${expression}`,
              operation: callbackOperation,
            });
          }
        }
      }
    }
  }
  return all;
}

describe("/openapi.json operations", () => {
  it("each has a unique operationId", async () => {
    const all = await operations();
    expect(all.filter(({ operation }) => !operation.operationId).map(({ where }) => where)).toEqual(
      [],
    );
    const ids = all.map(({ operation }) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("each says how it is secured; the open ones with security: []", async () => {
    const all = await operations();
    expect(
      all.filter(({ operation }) => !Array.isArray(operation.security)).map(({ where }) => where),
    ).toEqual([]);
    const open = all
      .filter(({ operation }) => operation.security?.length === 0)
      .map(({ where }) => where);
    expect(open).toEqual(
      expect.arrayContaining([
        "GET /healthz",
        "GET /openapi.json",
        "GET /approve/{token}",
        "POST /approve/{token}",
        "GET /inbox",
        "GET /oauth/callback",
      ]),
    );
    expect(open).not.toContain("POST /v1/runs");
    expect(open).not.toContain("POST /v1/decisions");
  });

  it("POST /approve/{token} lists its 403 (anonymous link on a ruled request, not an approver)", async () => {
    const post = (await operations()).find(({ where }) => where === "POST /approve/{token}")!;
    expect(post.operation.responses).toHaveProperty("403");
  });
});
