/**
 * Email's variables (docs/configuration.md, "Email and Microsoft Teams"): `EMAIL`, a Cloudflare `send_email`
 * binding, and `EMAIL_FROM`, the address approval emails come from. Both or neither: a
 * binding without a sender could not send, a sender without a binding has nothing to send
 * with. Neither ⇒ email is off: nothing is sent, and the confirmation pages of links that
 * were sent earlier still work (they need only WEBHOOK_SECRET).
 */
import { ConfigError } from "../config-error";

export interface EmailEnv {
  /** A `send_email` binding (wrangler.toml `[[send_email]] name = "EMAIL"`). */
  EMAIL?: unknown;
  EMAIL_FROM?: string;
}

/** What sending needs: the binding's one method, and the sender's address. */
export interface EmailSettings {
  binding: { send(message: unknown): Promise<unknown> };
  /** A bare address (`approvals@example.com`): the envelope sender and the From header alike. */
  from: string;
}

/** A bare address: no display name, no angle brackets, no whitespace (header-safe as it is). */
const ADDRESS =
  /^[^\s@<>()",;:\\[\]]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+$/;

/** The email settings, or undefined when email is off (read by `settings(env).email`). */
export function parseEmailSettings(env: EmailEnv): EmailSettings | undefined {
  const binding = env.EMAIL;
  const from = env.EMAIL_FROM?.trim();
  if (binding === undefined && !from) {
    return undefined;
  }
  if (binding === undefined) {
    throw new ConfigError(
      'EMAIL is not bound (required with EMAIL_FROM): add [[send_email]] name = "EMAIL" to wrangler.toml',
    );
  }
  if (!from) {
    throw new ConfigError("EMAIL_FROM is not set (required with the EMAIL binding)");
  }
  if (typeof (binding as { send?: unknown } | null)?.send !== "function") {
    throw new ConfigError("EMAIL is not a send_email binding (it has no send method)");
  }
  if (!ADDRESS.test(from)) {
    throw new ConfigError(
      `EMAIL_FROM must be a bare address such as approvals@example.com: ${JSON.stringify(from)}`,
    );
  }
  return { binding: binding as EmailSettings["binding"], from };
}
