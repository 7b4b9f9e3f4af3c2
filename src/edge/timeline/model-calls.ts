/**
 * Where the model calls are in a run's event log. The edge's log has no event per model
 * call (the SSE vocabulary is `text`, `tool_call`, `tool_result`, `pending`, `resumed`, …;
 * the kernel's `usage` is not stored), so a call is read from its boundaries: it begins when
 * the run starts, when a turn's tool results are in, or when a decision resumes the run, and
 * it ends at the first `tool_call` it asked for, or at `done`/`error` for a text answer.
 * While a request waits no model call is open. A kernel-side log that does carry `usage`
 * (one per call, with its tokens) ends the call there instead.
 */
export interface ModelCallRow {
  kind: "model";
  start: number;
  end: number;
  open: boolean;
  text: string;
  tokens?: number;
}

export class ModelCalls {
  private start: number;
  private open = true;
  private text = "";
  /** Requests surfaced and not yet resumed: no model call runs meanwhile. */
  private readonly waiting = new Set<string>();

  constructor(
    runStart: number,
    private readonly push: (row: ModelCallRow) => void,
  ) {
    this.start = runStart;
  }

  streamed(delta: string): void {
    this.text += delta;
    this.open = true;
  }

  /** The call answered (`usage`, with its tokens when known, or its first `tool_call`). */
  answered(at: number, tokens?: number): void {
    if (!this.open) {
      return;
    }
    this.push({
      kind: "model",
      start: this.start,
      end: at,
      open: false,
      text: this.text,
      ...(tokens === undefined ? {} : { tokens }),
    });
    this.open = false;
    this.text = "";
    this.start = at;
  }

  pending(requestId: string): void {
    this.waiting.add(requestId);
    this.open = false;
  }

  /** A tool result or a decision applied: the next call begins here unless a request still waits. */
  next(at: number, resumed?: string | true): void {
    if (resumed === true) {
      this.waiting.clear(); // recovery after a crash: the drive starts over from storage
    } else if (resumed !== undefined) {
      this.waiting.delete(resumed);
    }
    this.start = Math.max(this.start, at);
    this.open = this.waiting.size === 0;
  }

  /** The run's end (`done`, `error`), or the render time for a call still running. */
  finish(at: number, running: boolean): void {
    if (this.open && running) {
      this.push({ kind: "model", start: this.start, end: at, open: true, text: this.text });
      this.open = false;
    } else {
      this.answered(at);
    }
  }
}
