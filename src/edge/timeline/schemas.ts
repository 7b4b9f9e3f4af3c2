/** The view-link response's schema: the route's contract, /openapi.json and the typed client's type. */
import * as z from "zod";

export const RunViewLinkSchema = z
  .object({
    url: z.string().describe("Opens the run's timeline page with no sign-in (a signed view link)"),
    expiresAt: z.string().describe("RFC 3339; 24 hours after it was made"),
  })
  .meta({ id: "RunViewLink" });
