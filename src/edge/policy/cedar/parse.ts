/**
 * Cedar policy text, parsed once: each policy's id, effect and annotations, or a
 * `ConfigError` naming the file and line of the first syntax error.
 */
import type { DetailedError } from "@cedar-policy/cedar-wasm/web";
import { ConfigError } from "../../config-error";
import type { CedarApi } from "./api";

export interface ParsedPolicy {
  id: string;
  effect: "permit" | "forbid";
  annotations: Record<string, string>;
}

export interface ParsedPolicySet {
  /** Every policy's text by its id (`<file>#<n>`), as the authorizer takes them. */
  texts: Record<string, string>;
  policies: Map<string, ParsedPolicy>;
}

/** `files`: a name for each text (`"policies.cedar"`), used in ids and error messages. */
export function parsePolicySet(api: CedarApi, files: Record<string, string>): ParsedPolicySet {
  const texts: Record<string, string> = {};
  const policies = new Map<string, ParsedPolicy>();
  for (const [file, text] of Object.entries(files)) {
    const checked = api.checkParsePolicySet({ staticPolicies: text });
    if (checked.type === "failure") {
      throw new ConfigError(`Cedar policy ${errorAt(file, text, checked.errors)}`);
    }
    const parts = api.policySetTextToParts(text);
    if (parts.type === "failure") {
      throw new ConfigError(`Cedar policy ${errorAt(file, text, parts.errors)}`);
    }
    if (parts.policy_templates.length > 0) {
      throw new ConfigError(
        `Cedar policy ${file}: templates are not supported, write static policies`,
      );
    }
    parts.policies.forEach((policy, n) => {
      const json = api.policyToJson(policy);
      if (json.type === "failure") {
        throw new ConfigError(`Cedar policy ${errorAt(file, policy, json.errors)}`);
      }
      const id = `${file}#${n}`;
      texts[id] = policy;
      const annotations: Record<string, string> = {};
      for (const [key, value] of Object.entries(json.json.annotations ?? {})) {
        annotations[key] = typeof value === "string" ? value : "";
      }
      policies.set(id, { id, effect: json.json.effect, annotations });
    });
  }
  return { texts, policies };
}

/** `<file> line <n>: <message>` for the first error with a place, else its message. */
function errorAt(file: string, text: string, errors: readonly DetailedError[]): string {
  const first = errors[0];
  const at = first?.sourceLocations?.[0]?.start;
  const message = first ? `${first.message}${first.help ? ` (${first.help})` : ""}` : "unreadable";
  if (at === undefined) {
    return `${file}: ${message}`;
  }
  const line = text.slice(0, at).split("\n").length;
  return `${file} line ${line}: ${message}`;
}
