/**
 * Hands a raw MIME message to the `send_email` binding. The one module that imports
 * `cloudflare:email`, so everything else about email stays plain TypeScript.
 */
import { EmailMessage } from "cloudflare:email";
import type { EmailSettings } from "../settings";

export function emailSender(settings: EmailSettings) {
  return async (mail: { from: string; to: string; raw: string }): Promise<void> => {
    await settings.binding.send(new EmailMessage(mail.from, mail.to, mail.raw));
  };
}
