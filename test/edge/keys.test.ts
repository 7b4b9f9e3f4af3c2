// Keys derived from WEBHOOK_SECRET: one per purpose, the first secret signs, all verify.
import { describe, expect, it } from "vitest";
import { derivedKeys, type KeyPurpose } from "../../src/edge/approvals/keys";
import { signWebhook } from "../../src/edge/notify/webhooks";

const A = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const B = `whsec_${btoa("a second secret, rotated in later")}`;
const PURPOSES: KeyPurpose[] = [
  "approval-link",
  "approver-link",
  "inbox-session",
  "csrf",
  "conversation",
  "run-view",
  "trace-decider",
];
const bytes = new TextEncoder().encode("msg_1.1700000000.{}");

const mac = async (key: CryptoKey) =>
  btoa(String.fromCharCode(...new Uint8Array(await crypto.subtle.sign("HMAC", key, bytes))));

describe("derivedKeys", () => {
  it("gives one HMAC-SHA256 key per secret, in order, that can sign and verify", async () => {
    const keys = await derivedKeys([A, B], "csrf");
    expect(keys).toHaveLength(2);
    for (const key of keys) {
      expect(key.algorithm).toMatchObject({ name: "HMAC", hash: { name: "SHA-256" } });
      expect(key.usages.sort()).toEqual(["sign", "verify"]);
      expect(key.extractable).toBe(false);
    }
    const signature = await crypto.subtle.sign("HMAC", keys[0]!, bytes);
    expect(await crypto.subtle.verify("HMAC", keys[0]!, signature, bytes)).toBe(true);
    expect(await crypto.subtle.verify("HMAC", keys[1]!, signature, bytes)).toBe(false);
    // Order follows the secrets: after rotation the old secret's key still verifies.
    expect(await mac((await derivedKeys([B, A], "csrf"))[1]!)).toBe(await mac(keys[0]!));
  });

  it("separates purposes from each other and from the webhook signature itself", async () => {
    const macs = await Promise.all(
      PURPOSES.map(async (purpose) => mac((await derivedKeys([A], purpose))[0]!)),
    );
    const webhook = (
      await signWebhook(A, { id: "msg_1", timestamp: 1700000000, body: "{}" })
    ).slice(3);
    expect(new Set([...macs, webhook]).size).toBe(PURPOSES.length + 1);
  });

  it("is deterministic per secret and purpose, and cached", async () => {
    const [first] = await derivedKeys([A], "approver-link");
    const [again] = await derivedKeys([A], "approver-link");
    expect(again).toBe(first);
    const concurrent = await Promise.all([
      derivedKeys([B], "inbox-session"),
      derivedKeys([B], "inbox-session"),
    ]);
    expect(concurrent[0]![0]).toBe(concurrent[1]![0]);
  });

  it("keeps the approval-link label of the tokens minted before it (HKDF, info v1)", async () => {
    const raw = Uint8Array.from(atob(A.slice(6)), (c) => c.charCodeAt(0));
    const base = await crypto.subtle.importKey("raw", raw, "HKDF", false, ["deriveKey"]);
    const old = await crypto.subtle.deriveKey(
      {
        name: "HKDF",
        hash: "SHA-256",
        salt: new Uint8Array(0),
        info: new TextEncoder().encode("toolnexus-edge approval-token v1"),
      },
      base,
      { name: "HMAC", hash: "SHA-256", length: 256 },
      false,
      ["sign"],
    );
    expect(await mac((await derivedKeys([A], "approval-link"))[0]!)).toBe(await mac(old));
  });

  it("rejects no secrets, a malformed one, and an unknown purpose", async () => {
    await expect(derivedKeys([], "csrf")).rejects.toThrow(/no webhook secret/);
    await expect(derivedKeys(["whsec_***"], "csrf")).rejects.toThrow(/not valid base64/);
    await expect(derivedKeys([A], "nope" as KeyPurpose)).rejects.toThrow(/unknown key purpose/);
    // A failure is not cached: the same call fails the same way again.
    await expect(derivedKeys(["whsec_***"], "csrf")).rejects.toThrow(/not valid base64/);
  });
});
