import { expect, test } from "vitest";
test("runs", () => { expect(typeof globalThis.fetch).toBe("function"); });
