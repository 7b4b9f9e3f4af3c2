// RECEIPT_KEY (issue 30 item 3): Ed25519 from a 32-byte seed in workerd's WebCrypto, the kid an
// RFC 7638 thumbprint (checked against jose), and a config_error for every bad value.
import { calculateJwkThumbprint, exportJWK, importPKCS8 } from "jose";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../../../src/edge/settings";
import {
  parseReceiptSeeds,
  receiptJwks,
  receiptKeys,
} from "../../../src/edge/receipts/receipt-keys";
import { SEED_A, SEED_B } from "./helpers";

describe("RECEIPT_KEY", () => {
  it("derives the public key and its RFC 7638 thumbprint as jose does", async () => {
    const [key] = await receiptKeys(SEED_A);
    const seed = Uint8Array.from(atob(SEED_A), (c) => c.charCodeAt(0));
    // The same seed through jose's own PKCS#8 import, as PEM.
    const der = new Uint8Array([
      0x30,
      0x2e,
      0x02,
      0x01,
      0x00,
      0x30,
      0x05,
      0x06,
      0x03,
      0x2b,
      0x65,
      0x70,
      0x04,
      0x22,
      0x04,
      0x20,
      ...seed,
    ]);
    const pem = `-----BEGIN PRIVATE KEY-----\n${btoa(String.fromCharCode(...der))}\n-----END PRIVATE KEY-----`;
    const joseJwk = await exportJWK(await importPKCS8(pem, "EdDSA", { extractable: true }));
    expect(key?.publicJwk.x).toBe(joseJwk.x);
    expect(key?.kid).toBe(
      await calculateJwkThumbprint({ kty: "OKP", crv: "Ed25519", x: joseJwk.x }),
    );
    expect(key?.publicJwk).toEqual({
      kty: "OKP",
      crv: "Ed25519",
      x: joseJwk.x,
      kid: key?.kid,
      alg: "EdDSA",
      use: "sig",
    });
  });

  it("keeps every key, the first signing, and publishes all of them", async () => {
    const keys = await receiptKeys(`${SEED_B}  ${SEED_A}\n${SEED_B}`);
    expect(keys).toHaveLength(2); // the repeat counts once
    const [a] = await receiptKeys(SEED_A);
    const [b] = await receiptKeys(SEED_B);
    expect(receiptJwks(keys).keys.map((k) => k.kid)).toEqual([b?.kid, a?.kid]);
    expect(JSON.stringify(receiptJwks(keys))).not.toMatch(/"d"/); // public keys only
  });

  it("is a config_error when unset, not base64, short, long or a placeholder", async () => {
    await expect(receiptKeys(undefined)).rejects.toThrow(ConfigError);
    await expect(receiptKeys("  ")).rejects.toThrow(/RECEIPT_KEY is not set/);
    const bad: Array<[string, RegExp]> = [
      ["not*base64", /RECEIPT_KEY is not base64/],
      [btoa("x".repeat(16)), /RECEIPT_KEY is 16 bytes; an Ed25519 seed is 32/],
      [btoa("x".repeat(64)), /is 64 bytes/],
      [btoa("\0".repeat(32)), /one byte repeated/],
      [`${SEED_A} ${btoa("short")}`, /RECEIPT_KEY \(value 2 of 2\) is 5 bytes/],
    ];
    for (const [value, message] of bad) {
      expect(() => parseReceiptSeeds(value)).toThrow(ConfigError);
      expect(() => parseReceiptSeeds(value)).toThrow(message);
      await expect(receiptKeys(value)).rejects.toThrow(message);
    }
  });
});
