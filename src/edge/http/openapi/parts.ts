/** Response-object builders shared by the OpenAPI document's parts (src/edge/http/openapi/document.ts, openapi/inbox.ts). */
export const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });
export const json = (id: string, description: string) => ({
  description,
  content: { "application/json": { schema: ref(id) } },
});
export const error = (description: string) => json("Error", description);
export const html = (description: string) => ({
  description,
  content: { "text/html": { schema: { type: "string" } } },
});
