/**
 * The A2A wire as the outbound client sees it (SPEC §7A): JSON-RPC over one POST, in two
 * dialects. A v0.3 card (`url`, `protocolVersion` 0.x) gets the SPEC's literal
 * `SendMessage`/`GetTask` with `kind`-tagged parts, falling back to v0.3's `message/send` /
 * `tasks/get` when the peer does not know them (-32601); an A2A 1.0 card (`supportedInterfaces`)
 * gets 1.0's JSON (`ROLE_USER`, untagged parts, `TASK_STATE_*`). Tasks are read back into one
 * shape whatever the dialect.
 */
export type RemoteState =
  | "submitted"
  | "working"
  | "input-required"
  | "auth-required"
  | "completed"
  | "failed"
  | "canceled"
  | "rejected"
  | "unknown";

export interface RemoteTask {
  id: string;
  contextId?: string;
  state: RemoteState;
  /** Text of the status message (the remote's question when it needs input). */
  statusText: string;
  /** All text parts across artifacts, joined by "\n" (fallback: the last agent message). */
  output: string;
  /** The protocol's own task object, for a tool that reads it back (an MCP task: ../mcp/tasks). */
  detail?: Record<string, unknown>;
}

export type Dialect = "spec" | "v1";

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

export function normalizeState(raw: unknown): RemoteState {
  const text = String(raw ?? "")
    .toLowerCase()
    .replace(/^task_state_/, "")
    .replace(/_/g, "-");
  const known: RemoteState[] = [
    "submitted",
    "working",
    "input-required",
    "auth-required",
    "completed",
    "failed",
    "canceled",
    "rejected",
  ];
  return known.includes(text as RemoteState)
    ? (text as RemoteState)
    : text === "cancelled"
      ? "canceled"
      : "unknown";
}

export const TERMINAL_STATES: ReadonlySet<RemoteState> = new Set([
  "completed",
  "failed",
  "canceled",
  "rejected",
]);

function textOfParts(parts: unknown): string[] {
  return Array.isArray(parts)
    ? parts.flatMap((p) =>
        isRecord(p) && typeof p.text === "string" && (p.kind === undefined || p.kind === "text")
          ? [p.text]
          : [],
      )
    : [];
}

/** Reads a Task (or a direct Message answer) from a result in either dialect. */
export function readTask(result: unknown): RemoteTask {
  const body = isRecord(result) && isRecord(result.task) ? result.task : result;
  if (isRecord(result) && isRecord(result.message) && !isRecord(result.task)) {
    const m = result.message;
    return {
      id: String(m.taskId ?? m.messageId ?? ""),
      state: "completed",
      statusText: "",
      output: textOfParts(m.parts).join("\n"),
    };
  }
  if (!isRecord(body) || typeof body.id !== "string") {
    if (isRecord(body) && (body.kind === "message" || Array.isArray(body.parts))) {
      return {
        id: String(body.taskId ?? body.messageId ?? ""),
        state: "completed",
        statusText: "",
        output: textOfParts(body.parts).join("\n"),
      };
    }
    throw new Error("the A2A result is not a task");
  }
  const status = isRecord(body.status) ? body.status : {};
  const statusMessage = isRecord(status.message) ? status.message : undefined;
  const artifacts = Array.isArray(body.artifacts) ? body.artifacts : [];
  let output = artifacts.flatMap((a) => (isRecord(a) ? textOfParts(a.parts) : [])).join("\n");
  if (!output && Array.isArray(body.history)) {
    const agentMessages = body.history.filter(
      (m) => isRecord(m) && (m.role === "agent" || m.role === "ROLE_AGENT"),
    ) as Record<string, unknown>[];
    output = textOfParts(agentMessages.at(-1)?.parts).join("\n");
  }
  return {
    id: body.id,
    ...(typeof body.contextId === "string" ? { contextId: body.contextId } : {}),
    state: normalizeState(status.state),
    statusText: statusMessage ? textOfParts(statusMessage.parts).join("\n") : "",
    output,
  };
}

/** A user message with text (and data) parts, in the dialect's JSON. */
export function userMessage(
  dialect: Dialect,
  text: string,
  extra: {
    taskId?: string;
    contextId?: string;
    data?: Record<string, unknown>;
    skill?: string;
  } = {},
) {
  const parts: Record<string, unknown>[] = dialect === "v1" ? [{ text }] : [{ kind: "text", text }];
  if (extra.data) {
    parts.push(dialect === "v1" ? { data: extra.data } : { kind: "data", data: extra.data });
  }
  return {
    ...(dialect === "v1" ? {} : { kind: "message" }),
    role: dialect === "v1" ? "ROLE_USER" : "user",
    messageId: crypto.randomUUID(),
    parts,
    ...(extra.taskId ? { taskId: extra.taskId } : {}),
    ...(extra.contextId ? { contextId: extra.contextId } : {}),
    // Which skill the call is for (our own inbound picks the agent by it).
    ...(extra.skill ? { metadata: { skill: extra.skill } } : {}),
  };
}

export interface ResolvedCard {
  name: string;
  description: string;
  endpoint: string;
  dialect: Dialect;
  skills: { id: string; name: string; description: string }[];
}

/** Reads an agent card (v0.3 or 1.0); the JSON-RPC endpoint is `url`, else the JSONRPC interface, else the card's origin. */
export function readCard(card: unknown, cardUrl: string): ResolvedCard {
  if (!isRecord(card) || typeof card.name !== "string" || !Array.isArray(card.skills)) {
    throw new Error(`${cardUrl} is not an A2A agent card (needs name and skills)`);
  }
  const interfaces = Array.isArray(card.supportedInterfaces)
    ? card.supportedInterfaces.filter(isRecord)
    : [];
  const jsonRpc = interfaces.find(
    (i) => String(i.protocolBinding ?? "").toUpperCase() === "JSONRPC",
  );
  const v1 = jsonRpc !== undefined && !String(jsonRpc.protocolVersion ?? "1.0").startsWith("0.");
  const endpoint =
    typeof card.url === "string"
      ? card.url
      : typeof jsonRpc?.url === "string"
        ? jsonRpc.url
        : new URL(cardUrl).origin;
  return {
    name: card.name,
    description: typeof card.description === "string" ? card.description : "",
    endpoint,
    dialect: v1 ? "v1" : "spec",
    skills: card.skills.filter(isRecord).map((s) => ({
      id: String(s.id ?? s.name ?? ""),
      name: String(s.name ?? s.id ?? ""),
      description: typeof s.description === "string" ? s.description : "",
    })),
  };
}
