/**
 * The receipt routes' part of /openapi.json, for src/edge/http/openapi/document.ts to spread into
 * `paths` (`...RECEIPT_PATHS`). Schemas are inline: they are small and
 * only these routes use them.
 */
import { error } from "../http/openapi/parts";

const JWS = {
  type: "string",
  description:
    "A decision receipt as a compact JWS (header { alg: EdDSA, kid }); its payload is the receipt's JSON: { v: 1, seq, threadId, runId, requestId, tool, argsHash, agentVersion, rule, decision, reason?, decidedBy?, onBehalfOf?, votes?, channel, at, prev }",
  pattern: "^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$",
};

const JWKS = {
  type: "object",
  required: ["keys"],
  properties: {
    keys: {
      type: "array",
      description: "Every configured RECEIPT_KEY's public key, the signing one first",
      items: {
        type: "object",
        required: ["kty", "crv", "x", "kid"],
        properties: {
          kty: { const: "OKP" },
          crv: { const: "Ed25519" },
          x: { type: "string", description: "The public key, base64url" },
          kid: { type: "string", description: "RFC 7638 thumbprint of the key" },
          alg: { const: "EdDSA" },
          use: { const: "sig" },
        },
      },
    },
  },
};

const query = (name: string, description: string, schema: Record<string, unknown>) => ({
  name,
  in: "query",
  required: false,
  description,
  schema,
});

export const RECEIPT_PATHS = {
  "/v1/runs/{runId}/receipts": {
    get: {
      operationId: "listRunReceipts",
      summary: "A run's decision receipts in chain order",
      security: [{ bearer: [] }],
      parameters: [{ name: "runId", in: "path", required: true, schema: { type: "string" } }],
      responses: {
        200: {
          description:
            "The receipts; compare their number with `receiptCount` of GET /v1/runs/{runId} to find a cut tail",
          content: {
            "application/json": {
              schema: {
                type: "object",
                required: ["receipts"],
                properties: { receipts: { type: "array", items: JWS } },
              },
            },
          },
        },
        401: error("Bad or missing token"),
        404: error("run_not_found: no such run"),
      },
    },
  },
  "/v1/receipts": {
    get: {
      operationId: "exportReceipts",
      summary:
        "Every thread's decision receipts (or one thread's: `threadId`), one JSON string (a JWS) per line",
      security: [{ bearer: [] }],
      parameters: [
        query("since", "Receipts at or after this RFC 3339 time", {
          type: "string",
          format: "date-time",
        }),
        query("limit", "1–1000, default 100", { type: "integer", minimum: 1, maximum: 1000 }),
        query("cursor", "The `next-cursor` header of the previous page", { type: "string" }),
        query(
          "threadId",
          "Only this thread's receipts: one conversation's whole chain, in order (verifiable on its own)",
          { type: "string", pattern: "^[A-Za-z0-9_-]{1,128}$" },
        ),
      ],
      responses: {
        200: {
          description:
            "NDJSON: each thread's receipts in chain order (threads interleave). Verify with `npx toolnexus-edge verify-receipts`.",
          headers: {
            "next-cursor": {
              description: "Pass as `cursor` for the next page; absent on the last page",
              schema: { type: "string" },
            },
          },
          content: { "application/x-ndjson": { schema: JWS } },
        },
        400: error(
          "invalid_query: since, limit, cursor or threadId is malformed (named in issues)",
        ),
        401: error("Bad or missing token"),
      },
    },
  },
  "/.well-known/receipt-keys.json": {
    get: {
      operationId: "getReceiptKeys",
      summary: "The public keys receipts are signed with (a JWKS), old ones kept after a rotation",
      // Public: anyone verifying an export needs the keys.
      security: [],
      responses: {
        200: {
          description: "The JWKS",
          content: { "application/json": { schema: JWKS } },
        },
        500: error("config_error: RECEIPT_KEY is unset or malformed"),
      },
    },
  },
};
