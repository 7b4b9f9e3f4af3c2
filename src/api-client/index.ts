/**
 * `toolnexus-edge/client`: a typed client of the HTTP API for Node, browsers and
 * workers. Its types are inferred from the zod schemas that validate the routes.
 * @example
 * const api = createApiClient({ baseUrl: "http://localhost:8787", token: "dev-token" });
 * const { runId } = await api.runs.start({ agent: "support", input: "Delete my account" });
 * for await (const event of api.runs.events(runId)) console.log(event.event, event.data);
 */
import { webhookHeaders } from "../edge/notify/webhooks";
import { sseMessages } from "./sse";
import type {
  Agents,
  ApprovalsPage,
  ApprovalsQuery,
  ApproverLink,
  ApproverLinkCreate,
  RunViewLink,
  Decision,
  DecisionAccepted,
  ErrorBody,
  Run,
  RunAccepted,
  RunCreate,
  RunLink,
  RunLinkCreate,
  UndoAccepted,
  UndoCreate,
} from "./types";

export type * from "./types";

export interface ApiClientOptions {
  /** Where the worker is, e.g. `https://agents.example.com` (no trailing `/v1`). */
  baseUrl: string;
  /** The API_TOKEN, sent as `Authorization: Bearer`. Only `decisions.send` works without one. */
  token?: string;
  /** Defaults to the global fetch; tests and service bindings pass their own. */
  fetch?: (input: Request) => Promise<Response>;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
}

/** One Server-Sent Event of a run: `text`, `tool_call`, `tool_result`, `pending`, `resumed`, `done`, `error`, … */
export interface RunStreamEvent {
  /** Pass as `lastEventId` to resume after this event. */
  id: string;
  event: string;
  data: unknown;
}

export interface EventsOptions {
  /** Start after this event id (what the last stream delivered). */
  lastEventId?: string;
  signal?: AbortSignal;
  /** Reconnections in a row without a new event before giving up (default 5). */
  maxReconnects?: number;
  /** Milliseconds before the first reconnection, doubled each time (default 500). */
  reconnectDelayMs?: number;
}

/** A non-2xx answer, with the API's error code, message and field issues. */
export class ApiRequestError extends Error {
  override readonly name = "ApiRequestError";
  // biome-ignore lint/complexity/useMaxParams: public API (the toolnexus-edge/client export, docs/your-own-worker.md, "The typed client"): callers construct it in their own fakes, so its positional shape stays.
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly issues?: Array<{ path: string; message: string }>,
  ) {
    super(`${status} ${code}: ${message}`);
  }
}

/** The client of one edge service. */
export function createApiClient(options: ApiClientOptions) {
  const base = options.baseUrl.replace(/\/+$/, "");
  const send = options.fetch ?? ((request: Request) => fetch(request));

  async function call(
    method: string,
    path: string,
    init: {
      body?: unknown;
      headers?: Record<string, string>;
      signal?: AbortSignal;
      auth?: boolean;
    } = {},
  ): Promise<Response> {
    const headers = new Headers(options.headers);
    if (init.auth !== false && options.token) {
      headers.set("authorization", `Bearer ${options.token}`);
    }
    let body: string | undefined;
    if (init.body !== undefined) {
      body = typeof init.body === "string" ? init.body : JSON.stringify(init.body);
      headers.set("content-type", "application/json");
    }
    for (const [name, value] of Object.entries(init.headers ?? {})) {
      headers.set(name, value);
    }
    const response = await send(
      new Request(`${base}${path}`, {
        method,
        headers,
        ...(body === undefined ? {} : { body }),
        ...(init.signal ? { signal: init.signal } : {}),
      }),
    );
    if (!response.ok) {
      throw await errorOf(response);
    }
    return response;
  }

  const json = async <T>(response: Promise<Response>): Promise<T> =>
    (await (await response).json()) as T;
  const run = (runId: string) => `/v1/runs/${encodeURIComponent(runId)}`;

  return {
    agents: {
      /** `GET /v1/agents`: each agent with its tools. */
      list: (): Promise<Agents> => json(call("GET", "/v1/agents")),
    },
    runs: {
      /** `POST /v1/runs`: starts a run (`202`); the loop goes on in the background. */
      start: (body: RunCreate): Promise<RunAccepted> => json(call("POST", "/v1/runs", { body })),
      /** `GET /v1/runs/:runId`, with the transcript when asked. */
      get: (runId: string, query: { transcript?: boolean } = {}): Promise<Run> =>
        json(call("GET", `${run(runId)}${query.transcript ? "?transcript=true" : ""}`)),
      /**
       * `GET /v1/runs/:runId/tool-calls/:callId/output`: a finished call's whole output (the
       * model may have been sent only its first part: a `tool_result` event or a
       * `toolCalls` entry with `truncated`). `404` (`run_not_found`, `tool_call_not_found`)
       * for an unknown run or call.
       */
      toolOutput: async (
        runId: string,
        callId: string,
        opts: { signal?: AbortSignal } = {},
      ): Promise<string> =>
        (
          await call("GET", `${run(runId)}/tool-calls/${encodeURIComponent(callId)}/output`, opts)
        ).text(),
      /** `POST /v1/runs/:runId/cancel`. */
      cancel: (runId: string): Promise<Run> => json(call("POST", `${run(runId)}/cancel`)),
      /**
       * `POST /v1/runs/:runId/undo` as `user` (`x-toolnexus-user`): takes back what a finished
       * run did (docs/undo.md). `202` begun, `200` the first undo's state; `409` `run_active`
       * or `nothing_to_undo`.
       */
      undo: (runId: string, body: UndoCreate & { user: string }): Promise<UndoAccepted> =>
        json(
          call("POST", `${run(runId)}/undo`, {
            body: { reason: body.reason },
            headers: { "x-toolnexus-user": body.user },
          }),
        ),
      /**
       * The run's events, replayed from the start (or after `lastEventId`) and then live,
       * until `done` or a final `error`. A connection that drops is reopened with
       * `Last-Event-ID`, so no event is missed or repeated.
       */
      events: (runId: string, opts: EventsOptions = {}): AsyncGenerator<RunStreamEvent> =>
        runEvents(
          (headers, signal) => call("GET", `${run(runId)}/events`, { headers, signal }),
          opts,
        ),
    },
    approvals: {
      /** `GET /v1/approvals`: one approver group's inbox, a page at a time (`nextCursor`). */
      list: (query: ApprovalsQuery): Promise<ApprovalsPage> => {
        const params = new URLSearchParams();
        for (const [key, value] of Object.entries(query)) {
          if (value !== undefined) {
            params.set(key, String(value));
          }
        }
        return json(call("GET", `/v1/approvals?${params}`));
      },
    },
    links: {
      /**
       * `POST /v1/runs/:runId/links` (`201`): a personal approval-page link for one approver
       * (a member id or one of their identities) of one pending request, valid until the
       * request expires; the page decides as that approver. `403` (`not_an_approver`,
       * `own_request`) when they may not decide it, `409` once it is no longer pending.
       */
      create: (runId: string, body: RunLinkCreate): Promise<RunLink> =>
        json(call("POST", `${run(runId)}/links`, { body })),
      /**
       * `POST /v1/approvers/links` (`201`): a sign-in link to `/inbox` for one approver (a member
       * id or one of a member's identities); it sets the inbox session cookie.
       */
      inbox: (body: ApproverLinkCreate): Promise<ApproverLink> =>
        json(call("POST", "/v1/approvers/links", { body })),
      /**
       * `POST /v1/runs/:runId/view-link` (`201`): a signed link to the run's timeline page,
       * valid 24 hours, for anyone who holds it (it shows the run; it decides nothing).
       */
      view: (runId: string): Promise<RunViewLink> => json(call("POST", `${run(runId)}/view-link`)),
    },
    decisions: {
      /**
       * `POST /v1/decisions`, signed per Standard Webhooks with `secret` (`whsec_…`, the
       * WEBHOOK_SECRET): for approver backends. `id` (the `webhook-id`) makes a retry an
       * idempotent repeat; one is generated when absent.
       */
      send: (
        secret: string,
        decision: Decision,
        opts: { id?: string } = {},
      ): Promise<DecisionAccepted> => {
        const body = JSON.stringify(decision);
        return json(
          webhookHeaders(secret, body, opts).then((headers) =>
            call("POST", "/v1/decisions", { body, headers, auth: false }),
          ),
        );
      },
    },
  };
}

export type ApiClient = ReturnType<typeof createApiClient>;

async function errorOf(response: Response): Promise<ApiRequestError> {
  const text = await response.text();
  try {
    const { error } = JSON.parse(text) as ErrorBody;
    return new ApiRequestError(response.status, error.code, error.message, error.issues);
  } catch {
    return new ApiRequestError(response.status, "http_error", text.slice(0, 200));
  }
}

function isFinal(event: RunStreamEvent): boolean {
  if (event.event === "done") {
    return true;
  }
  const data = event.data as { recoverable?: unknown } | null;
  return event.event === "error" && !(typeof data === "object" && data?.recoverable === true);
}

async function* runEvents(
  open: (headers: Record<string, string>, signal?: AbortSignal) => Promise<Response>,
  opts: EventsOptions,
): AsyncGenerator<RunStreamEvent> {
  let last = opts.lastEventId;
  let reconnects = 0;
  const max = opts.maxReconnects ?? 5;
  for (;;) {
    let body: ReadableStream<Uint8Array> | null = null;
    try {
      body = (await open(last ? { "last-event-id": last } : {}, opts.signal)).body;
    } catch (error) {
      // An answer from the API (404, 401) is final; a network failure is retried below.
      if (error instanceof ApiRequestError || opts.signal?.aborted) {
        throw error;
      }
    }
    try {
      for await (const message of body ? sseMessages(body) : []) {
        if (message.id === undefined) {
          continue;
        }
        reconnects = 0;
        last = message.id;
        const event: RunStreamEvent = {
          id: message.id,
          event: message.event ?? "message",
          data: JSON.parse(message.data),
        };
        yield event;
        if (isFinal(event)) {
          return;
        }
      }
    } catch (error) {
      if (opts.signal?.aborted) {
        throw error;
      }
      // The connection dropped mid-stream: reopen after the last event we saw.
    }
    reconnects += 1;
    if (reconnects > max) {
      throw new Error(`event stream dropped ${max + 1} times without a new event`);
    }
    await sleep((opts.reconnectDelayMs ?? 500) * 2 ** (reconnects - 1), opts.signal);
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    signal?.throwIfAborted();
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}
