/**
 * The edge peer (bench/edge-peers.mjs): a refund that needs a human's approval, built the way the
 * `agents` SDK's human-in-the-loop guide (the package's docs folder) shows it, on the base `Agent` class over HTTP
 * (`AIChatAgent` moved to `@cloudflare/ai-chat`, not installed here; its approval path is the same
 * AI SDK `needsApproval`, carried over a WebSocket chat protocol instead of two POSTs).
 *
 *   POST /agents/refund-agent/<run> {"input": "..."}            → {"status":"pending","approvalId"}
 *   POST /agents/refund-agent/<run> {"approvalId","approved"}   → {"status":"done","text"}
 *
 * The model is the same scripted model as the product's (scripts/lib/fake-model.mjs on
 * 127.0.0.1, OpenAI wire style), reached through a minimal AI SDK LanguageModelV4 below: the
 * AI SDK's OpenAI-compatible provider is not a root dependency. The transcript (AI SDK
 * ModelMessages) is kept in the agent's SQLite, one row per run, as an AIChatAgent does.
 * The tool pings `TOOL_PING_URL` (the benchmark's client, on 127.0.0.1) as it starts, so that the
 * client can time decision → tool started.
 */
import type { LanguageModelV4, LanguageModelV4Prompt } from "@ai-sdk/provider";
import { Agent, routeAgentRequest } from "agents";
import { generateText, jsonSchema, type ModelMessage, stepCountIs, tool } from "ai";

interface Env {
  RefundAgent: DurableObjectNamespace<RefundAgent>;
  LLM_BASE_URL: string;
  TOOL_PING_URL?: string;
}

/** The prompt in OpenAI chat-completions form (what the scripted model reads). */
function openaiMessages(prompt: LanguageModelV4Prompt): unknown[] {
  const out: unknown[] = [];
  for (const m of prompt) {
    if (m.role === "system") {
      out.push({ role: "system", content: m.content });
    } else if (m.role === "user") {
      out.push({
        role: "user",
        content: m.content.map((p) => (p.type === "text" ? p.text : "")).join(""),
      });
    } else if (m.role === "assistant") {
      const calls = m.content.filter((p) => p.type === "tool-call");
      out.push({
        role: "assistant",
        content: m.content.map((p) => (p.type === "text" ? p.text : "")).join("") || null,
        ...(calls.length
          ? {
              tool_calls: calls.map((c) => ({
                id: c.toolCallId,
                type: "function",
                function: { name: c.toolName, arguments: JSON.stringify(c.input) },
              })),
            }
          : {}),
      });
    } else if (m.role === "tool") {
      for (const p of m.content) {
        if (p.type === "tool-result") {
          const o = p.output as { type: string; value: unknown };
          out.push({
            role: "tool",
            tool_call_id: p.toolCallId,
            content: typeof o.value === "string" ? o.value : JSON.stringify(o.value),
          });
        }
      }
    }
  }
  return out;
}

function scriptedModel(baseUrl: string): LanguageModelV4 {
  const usage = {
    inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: 0, text: 0, reasoning: 0 },
  };
  const generate = async (options: Parameters<LanguageModelV4["doGenerate"]>[0]) => {
    const tools = (options.tools ?? []).flatMap((t) =>
      t.type === "function"
        ? [{ type: "function", function: { name: t.name, parameters: t.inputSchema } }]
        : [],
    );
    const response = await fetch(`${baseUrl}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "fake-model",
        messages: openaiMessages(options.prompt),
        tools,
      }),
      signal: options.abortSignal,
    });
    const body = (await response.json()) as {
      choices: {
        message: {
          content: string | null;
          tool_calls?: { id: string; function: { name: string; arguments: string } }[];
        };
      }[];
    };
    const message = body.choices[0].message;
    const content: Awaited<ReturnType<LanguageModelV4["doGenerate"]>>["content"] = [];
    if (message.content) {
      content.push({ type: "text", text: message.content });
    }
    for (const c of message.tool_calls ?? []) {
      content.push({
        type: "tool-call",
        toolCallId: c.id,
        toolName: c.function.name,
        input: c.function.arguments,
      });
    }
    return {
      content,
      finishReason: {
        unified: message.tool_calls?.length ? ("tool-calls" as const) : ("stop" as const),
        raw: undefined,
      },
      usage,
      warnings: [],
    };
  };
  return {
    specificationVersion: "v4",
    provider: "scripted",
    modelId: "fake-model",
    supportedUrls: {},
    doGenerate: generate,
    async doStream() {
      throw new Error("the peer uses generateText");
    },
  } as LanguageModelV4;
}

export class RefundAgent extends Agent<Env> {
  async onRequest(request: Request): Promise<Response> {
    this
      .sql`CREATE TABLE IF NOT EXISTS turns (id INTEGER PRIMARY KEY CHECK (id = 1), messages TEXT NOT NULL)`;
    const body = (await request.json()) as {
      input?: string;
      approvalId?: string;
      approved?: boolean;
    };
    const [row] = this.sql<{ messages: string }>`SELECT messages FROM turns WHERE id = 1`;
    const messages: ModelMessage[] = row ? JSON.parse(row.messages) : [];
    if (body.input !== undefined) {
      messages.push({ role: "user", content: body.input });
    } else if (body.approvalId) {
      messages.push({
        role: "tool",
        content: [
          {
            type: "tool-approval-response",
            approvalId: body.approvalId,
            approved: body.approved === true,
          },
        ],
      });
    } else {
      return Response.json(
        { error: { code: "bad_request", message: "input or approvalId" } },
        { status: 400 },
      );
    }
    const ping = this.env.TOOL_PING_URL;
    let refunds = 0; // how often the tool ran in this turn (the benchmark checks: once, after approval)
    const result = await generateText({
      model: scriptedModel(this.env.LLM_BASE_URL),
      system: "You are a support agent. Refunds need a human's approval.",
      messages,
      stopWhen: stepCountIs(5),
      tools: {
        refund_order: tool({
          description: "Refund an order",
          inputSchema: jsonSchema<{ orderId: string; amount: number }>({
            type: "object",
            properties: { orderId: { type: "string" }, amount: { type: "number" } },
            required: ["orderId", "amount"],
          }),
          needsApproval: true,
          execute: async ({ orderId, amount }) => {
            refunds += 1;
            if (ping) {
              await fetch(`${ping}?run=${encodeURIComponent(this.name)}`, { method: "POST" });
            }
            return { refunded: true, orderId, amount };
          },
        }),
      },
    });
    messages.push(...result.response.messages);
    this.sql`INSERT OR REPLACE INTO turns (id, messages) VALUES (1, ${JSON.stringify(messages)})`;
    const approval = result.content.find((p) => p.type === "tool-approval-request");
    if (approval) {
      return Response.json({ status: "pending", approvalId: approval.approvalId });
    }
    return Response.json({ status: "done", text: result.text, refunds });
  }
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    return (
      (await routeAgentRequest(request, env)) ??
      Response.json({ error: { code: "not_found", message: "no such route" } }, { status: 404 })
    );
  },
} satisfies ExportedHandler<Env>;
