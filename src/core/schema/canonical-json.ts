/**
 * One canonical JSON text for comparing values (ledger repeats, approver votes, edited
 * arguments): lives in the kernel because the vote rule and the edge both need it.
 */

/** Like JSON.stringify (toJSON honoured, undefined members dropped) but with sorted keys. */
export function canonicalJson(value: unknown): string {
  if (
    value !== null &&
    typeof value === "object" &&
    typeof (value as { toJSON?: unknown }).toJSON === "function"
  ) {
    value = (value as { toJSON: () => unknown }).toJSON();
  }
  if (Array.isArray(value)) {
    return `[${value.map((item) => canonicalJson(item)).join(",")}]`;
  }
  if (value !== null && typeof value === "object") {
    const record = value as Record<string, unknown>;
    const members: string[] = [];
    for (const key of Object.keys(record).sort()) {
      const item = record[key];
      if (item === undefined || typeof item === "function" || typeof item === "symbol") {
        continue;
      }
      members.push(`${JSON.stringify(key)}:${canonicalJson(item)}`);
    }
    return `{${members.join(",")}}`;
  }
  // Primitives; undefined/functions at the top level digest as null rather than crashing.
  return JSON.stringify(value) ?? "null";
}
