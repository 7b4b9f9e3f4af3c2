import { describe, expect, it } from "vitest";
import {
  ApprovalTokenError,
  type ApprovalClaims,
  createApprovalToken,
  digestArgs,
  verifyApprovalToken,
} from "../../src/edge/approvals/approval-token";
import { signWebhook } from "../../src/edge/notify/webhooks";

const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const OTHER = `whsec_${btoa("another secret, 32 bytes long!!!")}`;
const NOW = 1_700_000_000_000;
const CLAIMS: ApprovalClaims = {
  threadId: "thr_1",
  runId: "run_1",
  requestId: "req_1",
  argsDigest: "abc",
  exp: NOW / 1000 + 600,
};

async function code(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApprovalTokenError);
  return (error as ApprovalTokenError).code;
}

/** Flips one character of a base64url segment to another valid one. */
function flip(segment: string, at: number): string {
  const c = segment[at] === "A" ? "B" : "A";
  return segment.slice(0, at) + c + segment.slice(at + 1);
}

describe("approval tokens", () => {
  it("round-trips claims", async () => {
    const token = await createApprovalToken(SECRET, CLAIMS);
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(await verifyApprovalToken(SECRET, token, { now: NOW })).toEqual(CLAIMS);
  });

  it("round-trips unicode claims", async () => {
    const claims = { ...CLAIMS, threadId: "fil-à-plomb 🧵" };
    expect(
      await verifyApprovalToken(SECRET, await createApprovalToken(SECRET, claims), { now: NOW }),
    ).toEqual(claims);
  });

  it("drops extra properties rather than signing them", async () => {
    const token = await createApprovalToken(SECRET, { ...CLAIMS, admin: true } as ApprovalClaims);
    expect(await verifyApprovalToken(SECRET, token, { now: NOW })).toEqual(CLAIMS);
  });

  it("rejects a tampered payload", async () => {
    const [payload, mac] = (await createApprovalToken(SECRET, CLAIMS)).split(".") as [
      string,
      string,
    ];
    expect(
      await code(verifyApprovalToken(SECRET, `${flip(payload, 5)}.${mac}`, { now: NOW })),
    ).toBe("tampered");
    // A re-encoded payload with a later expiry but the old MAC.
    const forged = btoa(JSON.stringify({ ...CLAIMS, exp: CLAIMS.exp + 1e6 }))
      .replace(/=+$/, "")
      .replaceAll("+", "-")
      .replaceAll("/", "_");
    expect(await code(verifyApprovalToken(SECRET, `${forged}.${mac}`, { now: NOW }))).toBe(
      "tampered",
    );
  });

  it("rejects a tampered signature", async () => {
    const [payload, mac] = (await createApprovalToken(SECRET, CLAIMS)).split(".") as [
      string,
      string,
    ];
    expect(
      await code(verifyApprovalToken(SECRET, `${payload}.${flip(mac, 0)}`, { now: NOW })),
    ).toBe("tampered");
    expect(
      await code(verifyApprovalToken(SECRET, `${payload}.${mac.slice(0, 40)}`, { now: NOW })),
    ).toBe("tampered");
  });

  it("rejects a token made with another secret", async () => {
    const token = await createApprovalToken(OTHER, CLAIMS);
    expect(await code(verifyApprovalToken(SECRET, token, { now: NOW }))).toBe("tampered");
  });

  it("uses a key distinct from the webhook signing key", async () => {
    const [payload, mac] = (await createApprovalToken(SECRET, CLAIMS)).split(".") as [
      string,
      string,
    ];
    const webhookMac = await signWebhook(SECRET, { id: "", timestamp: 0, body: payload });
    expect(
      webhookMac.slice(3).replace(/=+$/, "").replaceAll("+", "-").replaceAll("/", "_"),
    ).not.toBe(mac);
  });

  it("rejects expired tokens, from the exp second on", async () => {
    const token = await createApprovalToken(SECRET, CLAIMS);
    expect(await code(verifyApprovalToken(SECRET, token, { now: CLAIMS.exp * 1000 }))).toBe(
      "expired",
    );
    expect(await code(verifyApprovalToken(SECRET, token, { now: NOW + 3_600_000 }))).toBe(
      "expired",
    );
    await expect(
      verifyApprovalToken(SECRET, token, { now: CLAIMS.exp * 1000 - 1000 }),
    ).resolves.toEqual(CLAIMS);
  });

  it("checks the signature before the expiry", async () => {
    const [payload, mac] = (await createApprovalToken(SECRET, CLAIMS)).split(".") as [
      string,
      string,
    ];
    expect(
      await code(verifyApprovalToken(SECRET, `${payload}.${flip(mac, 3)}`, { now: NOW * 2 })),
    ).toBe("tampered");
  });

  it("rejects non-canonical signature spellings", async () => {
    const token = await createApprovalToken(SECRET, CLAIMS);
    expect(await code(verifyApprovalToken(SECRET, `${token}=`, { now: NOW }))).toBe("malformed");
  });

  it.each([
    ["empty", ""],
    ["no dot", "abcdef"],
    ["three parts", "a.b.c"],
    ["empty payload", ".abc"],
    ["empty signature", "abc."],
    ["bad base64", "ab$c.de+f"],
    ["impossible base64 length", "abcde.a"],
    ["huge", `${"a".repeat(10_000)}.${"b".repeat(43)}`],
  ])("rejects a malformed token (%s)", async (_, token) => {
    expect(await code(verifyApprovalToken(SECRET, token, { now: NOW }))).toBe("malformed");
  });
});

describe("digestArgs", () => {
  it("is stable across key order, recursively", async () => {
    const a = await digestArgs({ b: 1, a: { y: [1, { q: 1, p: 2 }], x: null } });
    const b = await digestArgs({ a: { x: null, y: [1, { p: 2, q: 1 }] }, b: 1 });
    expect(a).toBe(b);
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it("distinguishes different values and array order", async () => {
    expect(await digestArgs({ a: 1 })).not.toBe(await digestArgs({ a: "1" }));
    expect(await digestArgs([1, 2])).not.toBe(await digestArgs([2, 1]));
  });

  it("follows JSON semantics for undefined and toJSON", async () => {
    expect(await digestArgs({ a: 1, b: undefined })).toBe(await digestArgs({ a: 1 }));
    expect(await digestArgs({ d: new Date(0) })).toBe(
      await digestArgs({ d: "1970-01-01T00:00:00.000Z" }),
    );
    expect(await digestArgs(undefined)).toBe(await digestArgs(null));
  });

  it("handles unicode keys and values consistently", async () => {
    const a = await digestArgs({ é: "日本語", "🚀": 1, z: "x" });
    const b = await digestArgs({ z: "x", "🚀": 1, é: "日本語" });
    expect(a).toBe(b);
    // Different code points are different arguments: no silent normalization.
    expect(await digestArgs({ s: "é" })).not.toBe(await digestArgs({ s: "e\u0301" }));
  });

  it("matches a known SHA-256 of canonical JSON", async () => {
    // sha256('{"a":1,"b":[true,"x"]}')
    const bytes = new Uint8Array(
      await crypto.subtle.digest("SHA-256", new TextEncoder().encode('{"a":1,"b":[true,"x"]}')),
    );
    const expected = btoa(String.fromCharCode(...bytes))
      .replace(/=+$/, "")
      .replaceAll("+", "-")
      .replaceAll("/", "_");
    expect(await digestArgs({ b: [true, "x"], a: 1 })).toBe(expected);
  });
});

describe("approval tokens under key rotation", () => {
  it("sign with the first secret; verify with any of the configured ones", async () => {
    const token = await createApprovalToken([OTHER, SECRET], CLAIMS);
    expect(await verifyApprovalToken([OTHER], token, { now: NOW })).toEqual(CLAIMS);
    expect(await verifyApprovalToken([SECRET, OTHER], token, { now: NOW })).toEqual(CLAIMS);
    expect(await code(verifyApprovalToken([SECRET], token, { now: NOW }))).toBe("tampered");
    // An expired token signed with an older key is reported as expired, not tampered.
    const old = await createApprovalToken(SECRET, { ...CLAIMS, exp: NOW / 1000 - 1 });
    expect(await code(verifyApprovalToken([OTHER, SECRET], old, { now: NOW }))).toBe("expired");
  });
});
