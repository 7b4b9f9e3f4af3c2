/** Reading decision receipts in tests: a compact JWS's payload, and a run's chain as served. */
import { fromBase64Url } from "../../src/edge/approvals/base64url";
import type { Receipt } from "../../src/edge/receipts/receipt";
import { api } from "./edge";

/** The receipt a compact JWS carries (its payload, unverified: the verifier tests check signatures). */
export const receiptPayload = (jws: string): Receipt =>
  JSON.parse(new TextDecoder().decode(fromBase64Url(jws.split(".")[1] ?? "") ?? new Uint8Array()));

/** `GET /v1/runs/:runId/receipts`, each receipt decoded, in chain order. */
export async function receiptsOf(runId: string): Promise<Receipt[]> {
  const { receipts } = await (await api(`/v1/runs/${runId}/receipts`)).json<{
    receipts: string[];
  }>();
  return receipts.map(receiptPayload);
}
