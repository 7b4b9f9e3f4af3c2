/**
 * Names every JavaScript object answers to without owning them (issue 37): a request that
 * uses one as a method, tool, agent, group, part type or key must get a clean refusal, never
 * Object's own member (`constructor` once made POST /a2a return the worker's env).
 */
export const PROTOTYPE_NAMES = [
  "constructor",
  "__proto__",
  "prototype",
  "toString",
  "toLocaleString",
  "valueOf",
  "hasOwnProperty",
  "isPrototypeOf",
  "propertyIsEnumerable",
  "__defineGetter__",
  "__defineSetter__",
  "__lookupGetter__",
  "__lookupSetter__",
  "then",
  "toJSON",
] as const;

/** The secret values the worker under test is configured with (vitest.config.ts): none may leak. */
export const SECRET_VALUES = [
  "test-token",
  "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
  "whsec_bm90aWZ5LW9ubHkgdGVzdCBrZXksIG5vdCBmb3IgZGVjaXNpb25z",
  "whsec_dGVzdC1vbmx5IG1jcCB0b2tlbiBrZXksIG5vdCByZWFs",
  "F3HL9lvndctt0UUF3146arEoGToztgEFdYFQfT+IfcQ=",
  "8f742231b10e8888abcd99yyyzzz85a5",
  "xoxb-test",
];

/** Variable names that would only appear in a body if an env object leaked. */
const SECRET_NAMES = [
  "API_TOKEN",
  "WEBHOOK_SECRET",
  "NOTIFY_SECRET",
  "MCP_TOKEN_KEY",
  "RECEIPT_KEY",
];

/** The secrets (values or variable names) a response body shows; [] when clean. */
export function leakedSecrets(body: string): string[] {
  return [...SECRET_VALUES, ...SECRET_NAMES].filter((secret) => body.includes(secret));
}

/**
 * A JSON object text whose own keys are every prototype name (JSON.stringify would drop a
 * `__proto__` key set by assignment; the text keeps it as JSON.parse sees it).
 */
export function prototypeKeysObject(value: string): string {
  return `{${PROTOTYPE_NAMES.map((name) => `${JSON.stringify(name)}:${value}`).join(",")}}`;
}
