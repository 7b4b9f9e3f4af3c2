/** The run view's policy fields as the OpenAPI document describes them (issue 43, docs/policy.md). */
import * as z from "zod";

const SOURCES = ["code", "authzen", "cedar", "fallback"] as const;

export function policyViewFields() {
  return {
    policy: z
      .enum(SOURCES)
      .optional()
      .describe(
        'Which policy decided that a person is asked: "fallback" when the PDP could not answer and the in-code rule applied',
      ),
    policyDecision: z
      .object({
        id: z.string().describe('"in-code", "authzen", "cedar:<hash8>", …'),
        version: z
          .string()
          .describe("A hash of the policy text or URL; the agent version for in-code rules"),
        decision: z.enum(["allow", "deny", "ask"]),
        source: z.enum(SOURCES),
      })
      .optional()
      .describe("Which policy decided: its id, version, decision and where the answer came from"),
  };
}
