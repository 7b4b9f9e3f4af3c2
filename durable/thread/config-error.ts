/**
 * A configuration mistake found while handling an RPC (a rule naming a group nobody
 * defined, a malformed APPROVER_GROUPS) is an outcome with the wire code `config_error`,
 * not an exception through the RPC boundary: every channel answers it in its own shape.
 */
import { ConfigError } from "../../src/edge/settings";

export async function configErrorOutcome<T>(
  work: () => T | Promise<T>,
): Promise<T | { ok: false; code: "config_error"; message: string }> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ConfigError) {
      return { ok: false, code: "config_error", message: error.message };
    }
    throw error;
  }
}
