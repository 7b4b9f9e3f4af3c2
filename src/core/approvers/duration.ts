/**
 * Durations in approver rules: milliseconds, or a whole number with a unit
 * (`"90s"`, `"15m"`, `"4h"`, `"2d"`) so a rule reads the way people say it.
 */

export type Duration = number | `${number}${"s" | "m" | "h" | "d"}`;

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const TEXT = /^([1-9][0-9]{0,8})([smhd])$/;

/**
 * Milliseconds of a `Duration`; anything else throws a `TypeError` naming `what`.
 * @example parseDuration("15m") // 900000
 */
export function parseDuration(value: unknown, what = "duration"): number {
  if (typeof value === "number") {
    if (Number.isSafeInteger(value) && value > 0) {
      return value;
    }
    throw new TypeError(`${what} must be a positive whole number of milliseconds, got ${value}`);
  }
  if (typeof value === "string") {
    const match = TEXT.exec(value.trim());
    if (match) {
      return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
    }
  }
  throw new TypeError(
    `${what} must be milliseconds or a string like "15m", "4h" or "2d", got ${JSON.stringify(value) ?? String(value)}`,
  );
}
