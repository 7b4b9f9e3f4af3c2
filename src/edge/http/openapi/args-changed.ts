/** The body of a `409 args_changed` answer, for the OpenAPI document (src/edge/http/errors.ts decisionError). */
import * as z from "zod";

export const ArgsChangedSchema = z
  .object({
    error: z.object({ code: z.literal("args_changed"), message: z.string() }),
    args: z.record(z.string(), z.unknown()).describe("The arguments now up for approval"),
    argsHash: z.string().describe("Their version: approve again with it after reviewing them"),
  })
  .meta({ id: "ArgsChanged" });
