/**
 * The hand checks of `Request` and `Answer` are a fast path only: whatever they accept,
 * the zod schemas accept too (the schemas stay the authority and give the errors).
 */
import { describe, expect, it } from "vitest";
import { AnswerSchema, RequestSchema, isPlainAnswer, isPlainRequest } from "../../src/core/wire";

const requests: unknown[] = [
  { id: "r1", kind: "approval", prompt: "ok?" },
  { id: "r1", kind: "approval", prompt: "" },
  { id: "r1", kind: "input", prompt: "p", url: "https://x.test", data: { schema: {} }, extra: 1 },
  { id: "r1", kind: "approval", prompt: "p", expiresAt: "2026-01-01T00:00:00Z" },
  { id: "", kind: "approval", prompt: "p" },
  { id: "r1", kind: "", prompt: "p" },
  { id: 1, kind: "approval", prompt: "p" },
  { id: "r1", prompt: "p" },
  { id: "r1", kind: "approval" },
  { id: "r1", kind: "approval", prompt: "p", url: 5 },
  { id: "r1", kind: "approval", prompt: "p", url: null },
  { id: "r1", kind: "approval", prompt: "p", data: [] },
  { id: "r1", kind: "approval", prompt: "p", data: null },
  { id: "r1", kind: "approval", prompt: "p", data: new Date(0) },
  { id: "r1", kind: "approval", prompt: "p", data: Object.create(null) },
  { id: "r1", kind: "approval", prompt: "p", data: { constructor: 1 } },
  { id: "r1", kind: "approval", prompt: "p", url: undefined, data: undefined },
  Object.assign(Object.create(null), { id: "r1", kind: "approval", prompt: "p" }),
  JSON.parse('{"id":"r1","kind":"approval","prompt":"p","__proto__":{"x":1}}'),
  [],
  null,
  "r1",
];

const answers: unknown[] = [
  { id: "r1", ok: true },
  { id: "r1", ok: true, data: { x: 1 } },
  { id: "r1", ok: false },
  { id: "r1", ok: false, reason: "declined" },
  { id: "r1", ok: true, reason: "nope" },
  { id: "r1", ok: false, reason: 5 },
  { id: "r1", ok: false, reason: null },
  { id: "", ok: true },
  { id: "r1", ok: "yes" },
  { id: "r1" },
  { id: "r1", ok: true, extra: [1] },
  Object.assign(Object.create(null), { id: "r1", ok: true }),
  [],
  null,
];

describe("wire hand checks", () => {
  it.each(requests.map((r) => [JSON.stringify(r) ?? String(r), r]))(
    "isPlainRequest never accepts what RequestSchema refuses: %s",
    (_name, request) => {
      if (isPlainRequest(request)) {
        expect(RequestSchema.safeParse(request).success).toBe(true);
      }
    },
  );

  it.each(answers.map((a) => [JSON.stringify(a) ?? String(a), a]))(
    "isPlainAnswer never accepts what AnswerSchema refuses: %s",
    (_name, answer) => {
      if (isPlainAnswer(answer)) {
        expect(AnswerSchema.safeParse(answer).success).toBe(true);
      }
    },
  );

  it("takes the common shapes without zod", () => {
    expect(isPlainRequest({ id: "r1", kind: "approval", prompt: "ok?" })).toBe(true);
    expect(isPlainRequest(JSON.parse('{"id":"r","kind":"input","prompt":"","data":{}}'))).toBe(
      true,
    );
    expect(isPlainAnswer({ id: "r1", ok: false, reason: "declined" })).toBe(true);
    expect(isPlainAnswer(JSON.parse('{"id":"r1","ok":true,"data":[1]}'))).toBe(true);
  });
});
