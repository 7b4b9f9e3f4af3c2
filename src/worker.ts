import { DurableObject } from "cloudflare:workers";
export class ThreadObject extends DurableObject {}
export default { fetch: () => new Response("ok") } satisfies ExportedHandler;
