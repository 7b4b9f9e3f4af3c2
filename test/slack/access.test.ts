// Cloudflare Access in front of /inbox: the Cf-Access-Jwt-Assertion header, verified with
// jose against the team's keys (served by the fake at https://team.test), signs the
// approver in; anything that does not verify signs nobody in.
import { describe, expect, it } from "vitest";
import { SELF } from "cloudflare:test";
import { BASE } from "../helpers/edge";
import { ACCESS_AUD, ACCESS_TEAM, accessJwt } from "../helpers/access";
import { accessIdentity } from "../../src/edge/approvals/access";
import { settings } from "../../src/edge/settings";

const page = (jwt?: string) =>
  SELF.fetch(`${BASE}/inbox`, { headers: jwt ? { "cf-access-jwt-assertion": jwt } : {} });

describe("Cloudflare Access on /inbox", () => {
  it("signs in the member named by a valid JWT's email (case-insensitively)", async () => {
    const response = await page(await accessJwt({ email: "Ann@Example.com" }));
    expect(response.status).toBe(200);
    // ann@example.com is the member "ann" of the default group in this project's groups.
    expect(await response.text()).toContain('<strong id="member">ann</strong>');
  });

  it("uses common_name when there is no email (service tokens)", async () => {
    const response = await page(await accessJwt({ common_name: "svc-approver" }));
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('<strong id="member">svc-approver</strong>');
  });

  it("refuses another audience, another issuer, an expired or forged token", async () => {
    const other = await accessJwt({ email: "ann@example.com" }, { audience: "aud-nope" });
    const issuer = await accessJwt({ email: "ann@example.com" }, { issuer: "https://evil.test" });
    const expired = await accessJwt({ email: "ann@example.com" }, { expiresIn: "-1m" });
    const valid = await accessJwt({ email: "ann@example.com" });
    const [head, , signature] = valid.split(".");
    const forged = `${head}.${btoa(JSON.stringify({ email: "mallory@example.com", iss: ACCESS_TEAM, aud: ACCESS_AUD, exp: 9999999999 })).replace(/=+$/, "")}.${signature}`;
    for (const jwt of [other, issuer, expired, forged, "not-a-jwt"]) {
      expect((await page(jwt)).status).toBe(401);
    }
  });

  it("reads its settings: both variables or neither, the domain an origin", () => {
    expect(settings({}).access).toBeUndefined();
    expect(() => settings({ ACCESS_AUD: "a" }).access).toThrow(/ACCESS_TEAM_DOMAIN/);
    expect(() => settings({ ACCESS_TEAM_DOMAIN: "https://t.test" }).access).toThrow(/ACCESS_AUD/);
    expect(() => settings({ ACCESS_TEAM_DOMAIN: "team", ACCESS_AUD: "a" }).access).toThrow(
      /origin/,
    );
    expect(
      settings({ ACCESS_TEAM_DOMAIN: "https://t.test/", ACCESS_AUD: " a  b " }).access,
    ).toEqual({ teamDomain: "https://t.test", audiences: ["a", "b"] });
  });

  it("without settings or a header there is no Access identity", async () => {
    const jwt = await accessJwt({ email: "ann@example.com" });
    expect(await accessIdentity(undefined, new Headers({ "cf-access-jwt-assertion": jwt }))).toBe(
      undefined,
    );
    expect(
      await accessIdentity({ teamDomain: ACCESS_TEAM, audiences: [ACCESS_AUD] }, new Headers()),
    ).toBe(undefined);
  });
});
