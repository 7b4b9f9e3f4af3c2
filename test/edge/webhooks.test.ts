import { describe, expect, it } from "vitest";
import {
  WebhookVerificationError,
  parseWebhookSecret,
  signWebhook,
  verifyWebhook,
  webhookHeaders,
} from "../../src/edge/notify/webhooks";

// The published Standard Webhooks test vector.
const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const ID = "msg_p5jXN8AQM9LWM0D4loKWxJek";
const TS = 1614265330;
const PAYLOAD = '{"test": 2432232314}';
const EXPECTED = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";
const NOW = TS * 1000;
const OTHER = `whsec_${btoa("another secret, 32 bytes long!!!")}`;

function headersFor(signature: string, id = ID, timestamp = String(TS)): Headers {
  return new Headers({
    "webhook-id": id,
    "webhook-timestamp": timestamp,
    "webhook-signature": signature,
  });
}

async function rejection(promise: Promise<unknown>): Promise<WebhookVerificationError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WebhookVerificationError);
  return error as WebhookVerificationError;
}

describe("parseWebhookSecret", () => {
  it("accepts whsec_ and bare base64", () => {
    expect(parseWebhookSecret(SECRET)).toHaveLength(24);
    expect(parseWebhookSecret("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")).toEqual(
      parseWebhookSecret(SECRET),
    );
  });

  it.each(["", "   ", "whsec_", "whsec_not base64!", "whsec_@@@@", "whsec_A"])(
    "rejects %j",
    (secret) => {
      expect(() => parseWebhookSecret(secret)).toThrow(/webhook secret/);
    },
  );
});

describe("signWebhook", () => {
  it("matches the spec's published vector", async () => {
    expect(await signWebhook(SECRET, { id: ID, timestamp: TS, body: PAYLOAD })).toBe(EXPECTED);
  });
});

describe("webhookHeaders", () => {
  it("produces headers that verify", async () => {
    const headers = await webhookHeaders(SECRET, PAYLOAD, { id: ID, now: NOW + 999 });
    expect(headers).toEqual({
      "webhook-id": ID,
      "webhook-timestamp": String(TS),
      "webhook-signature": EXPECTED,
      "content-type": "application/json",
    });
    expect(await verifyWebhook(SECRET, new Headers(headers), PAYLOAD, { now: NOW })).toEqual({
      id: ID,
      timestamp: TS,
    });
  });

  it("generates a fresh msg_ id and uses the clock", async () => {
    const a = await webhookHeaders(SECRET, "{}");
    const b = await webhookHeaders(SECRET, "{}");
    expect(a["webhook-id"]).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(a["webhook-id"]).not.toBe(b["webhook-id"]);
    expect(Math.abs(Number(a["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(5);
    await verifyWebhook(SECRET, new Headers(a), "{}");
  });
});

describe("verifyWebhook", () => {
  it("accepts the spec vector", async () => {
    expect(await verifyWebhook(SECRET, headersFor(EXPECTED), PAYLOAD, { now: NOW })).toEqual({
      id: ID,
      timestamp: TS,
    });
  });

  it("rejects a tampered body (even whitespace)", async () => {
    const error = await rejection(
      verifyWebhook(SECRET, headersFor(EXPECTED), '{"test":2432232314}', { now: NOW }),
    );
    expect(error.code).toBe("bad_signature");
  });

  it("rejects a tampered id", async () => {
    const error = await rejection(
      verifyWebhook(SECRET, headersFor(EXPECTED, "msg_other"), PAYLOAD, { now: NOW }),
    );
    expect(error.code).toBe("bad_signature");
  });

  it("rejects the wrong secret", async () => {
    const error = await rejection(
      verifyWebhook(OTHER, headersFor(EXPECTED), PAYLOAD, { now: NOW }),
    );
    expect(error.code).toBe("bad_signature");
  });

  it("accepts any secret of a rotated list", async () => {
    await expect(
      verifyWebhook([OTHER, SECRET], headersFor(EXPECTED), PAYLOAD, { now: NOW }),
    ).resolves.toBeTruthy();
    await expect(
      verifyWebhook([SECRET, OTHER], headersFor(EXPECTED), PAYLOAD, { now: NOW }),
    ).resolves.toBeTruthy();
  });

  it("accepts a match among several signatures and ignores other versions", async () => {
    const other = await signWebhook(OTHER, { id: ID, timestamp: TS, body: PAYLOAD });
    const sig = EXPECTED.slice(3);
    const header = `v1a,${sig} ${other} v1,garbage!! v1,${btoa("short")} ${EXPECTED}`;
    await expect(
      verifyWebhook(SECRET, headersFor(header), PAYLOAD, { now: NOW }),
    ).resolves.toBeTruthy();
  });

  it("does not accept a right signature under another version", async () => {
    const error = await rejection(
      verifyWebhook(SECRET, headersFor(`v2,${EXPECTED.slice(3)}`), PAYLOAD, { now: NOW }),
    );
    expect(error.code).toBe("bad_signature");
  });

  it.each(["webhook-id", "webhook-timestamp", "webhook-signature"])(
    "rejects a missing %s",
    async (name) => {
      const headers = headersFor(EXPECTED);
      headers.delete(name);
      const error = await rejection(verifyWebhook(SECRET, headers, PAYLOAD, { now: NOW }));
      expect(error.code).toBe("missing_headers");
      expect(error.message).toContain(name);
    },
  );

  it.each([
    ["past", NOW + 301_000],
    ["future", NOW - 301_000],
  ])("rejects a stale timestamp (%s)", async (_, now) => {
    const error = await rejection(verifyWebhook(SECRET, headersFor(EXPECTED), PAYLOAD, { now }));
    expect(error.code).toBe("stale_timestamp");
  });

  it("accepts timestamps at the edge of tolerance and honours a custom tolerance", async () => {
    await expect(
      verifyWebhook(SECRET, headersFor(EXPECTED), PAYLOAD, { now: NOW + 300_000 }),
    ).resolves.toBeTruthy();
    await expect(
      verifyWebhook(SECRET, headersFor(EXPECTED), PAYLOAD, { now: NOW - 300_000 }),
    ).resolves.toBeTruthy();
    const error = await rejection(
      verifyWebhook(SECRET, headersFor(EXPECTED), PAYLOAD, {
        now: NOW + 11_000,
        toleranceSeconds: 10,
      }),
    );
    expect(error.code).toBe("stale_timestamp");
  });

  it.each(["abc", "1614265330.5", "1.6e9", "-1614265330", ""])(
    "rejects a non-integer timestamp %j",
    async (ts) => {
      const error = await rejection(
        verifyWebhook(SECRET, headersFor(EXPECTED, ID, ts), PAYLOAD, { now: NOW }),
      );
      expect(error.code).toBe("missing_headers");
    },
  );

  it("signs and verifies a unicode body over its raw text", async () => {
    const body = JSON.stringify({ text: "héllo — 世界 🚀", note: "\u2028" });
    const headers = await webhookHeaders(SECRET, body, { now: NOW });
    await expect(
      verifyWebhook(SECRET, new Headers(headers), body, { now: NOW }),
    ).resolves.toBeTruthy();
    const error = await rejection(
      verifyWebhook(SECRET, new Headers(headers), body.normalize("NFD"), { now: NOW }),
    );
    expect(error.code).toBe("bad_signature");
  });

  it("throws a configuration error (not a verification error) for a bad secret", async () => {
    await expect(
      verifyWebhook("whsec_!!", headersFor(EXPECTED), PAYLOAD, { now: NOW }),
    ).rejects.toThrow(/webhook secret/);
    await expect(verifyWebhook([], headersFor(EXPECTED), PAYLOAD, { now: NOW })).rejects.toThrow(
      /no webhook secret/,
    );
  });
});
