import { SELF } from "cloudflare:test";
import { expect, test } from "vitest";
test("worker answers", async () => { expect(await (await SELF.fetch("http://x/")).text()).toBe("ok"); });
