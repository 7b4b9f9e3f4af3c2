/**
 * In-memory Prometheus metrics for the agent loop: counters and histograms,
 * rendered in the text exposition format (version 0.0.4).
 */
import type { Usage } from "./types";

export type MetricEvent =
  | {
      type: "llm_request";
      model: string;
      /** "ok", "error", or an HTTP status code as a string. */
      status: string;
      durationMs: number;
      usage?: Usage;
    }
  | {
      type: "tool_call";
      tool: string;
      source: string;
      isError: boolean;
      pending: boolean;
      durationMs: number;
    }
  | { type: "run_error"; model: string; error: string }
  | {
      /** One per `run`/`ask`/`stream`/resume, whatever its outcome, with the run's totals. */
      type: "run";
      model: string;
      status: "done" | "pending" | "incomplete" | "failed";
      turns: number;
      toolCalls: number;
      totalTokens: number;
      durationMs: number;
      /** Only when the run failed (`status: "failed"`). */
      error?: string;
    };

/** Upper bounds (seconds) of the duration histograms; `+Inf` is implied. */
export const HISTOGRAM_BUCKETS: readonly number[] = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

interface Family {
  name: string;
  help: string;
  type: "counter" | "histogram";
  labels: readonly string[];
}

const FAMILIES = {
  llmRequests: {
    name: "toolnexus_llm_requests_total",
    help: "LLM requests by model and status.",
    type: "counter",
    labels: ["model", "status"],
  },
  llmTokens: {
    name: "toolnexus_llm_tokens_total",
    help: "LLM tokens consumed, by type (prompt, completion).",
    type: "counter",
    labels: ["type"],
  },
  llmDuration: {
    name: "toolnexus_llm_request_duration_seconds",
    help: "LLM request duration in seconds.",
    type: "histogram",
    labels: ["model"],
  },
  toolCalls: {
    name: "toolnexus_tool_calls_total",
    help: "Tool calls by tool, source and outcome; a suspended call is not an error.",
    type: "counter",
    labels: ["tool", "source", "is_error"],
  },
  toolDuration: {
    name: "toolnexus_tool_duration_seconds",
    help: "Tool execution duration in seconds.",
    type: "histogram",
    labels: ["tool"],
  },
  runErrors: {
    name: "toolnexus_run_errors_total",
    help: "Runs that ended with an error, by model.",
    type: "counter",
    labels: ["model"],
  },
} as const satisfies Record<string, Family>;

type FamilyKey = keyof typeof FAMILIES;

interface Series {
  labels: string[];
  value: number;
  /** Histograms only: per-bucket (non-cumulative) counts, one per HISTOGRAM_BUCKETS entry. */
  buckets?: number[];
  sum?: number;
}

/**
 * Collects `MetricEvent`s and renders them for a Prometheus scrape.
 * @example
 * const m = new MetricsRegistry();
 * m.record({ type: "run_error", model: "gpt-4o", error: "boom" });
 * m.render(); // "# HELP toolnexus_llm_requests_total ...\n..."
 */
const BATCH = 64;

export class MetricsRegistry {
  /** Per family, a tree of maps keyed by each label value in turn; the leaves are the series. */
  readonly #series = new Map<FamilyKey, LabelTree>();
  /**
   * Events recorded but not yet counted. Runs record a few events per turn between network
   * waits, where code runs cold; counting them in batches (and before every render) keeps
   * the counting code warm. At most `BATCH` events wait.
   */
  readonly #pending: MetricEvent[] = [];

  /** Adds one event to the counters and histograms (counted by the next render at the latest). */
  record(event: MetricEvent): void {
    if (event.type === "run") {
      // No Prometheus family of its own: failed runs are counted from `run_error`.
      return;
    }
    if (event.type !== "llm_request" && event.type !== "tool_call" && event.type !== "run_error") {
      const unknown: never = event;
      throw new TypeError(`unknown metric event: ${JSON.stringify(unknown)}`);
    }
    this.#pending.push(event);
    if (this.#pending.length >= BATCH) {
      this.#flush();
    }
  }

  #flush(): void {
    const events = this.#pending;
    for (let i = 0; i < events.length; i++) {
      this.#count(events[i] as MetricEvent);
    }
    events.length = 0;
  }

  #count(event: MetricEvent): void {
    switch (event.type) {
      case "llm_request": {
        this.#get("llmRequests", event.model, event.status).value += 1;
        this.#observe(this.#get("llmDuration", event.model), event.durationMs / 1000);
        if (event.usage) {
          this.#get("llmTokens", "prompt").value += nonNegative(event.usage.promptTokens);
          this.#get("llmTokens", "completion").value += nonNegative(event.usage.completionTokens);
        }
        return;
      }
      case "tool_call": {
        const isError = !event.pending && event.isError;
        this.#get("toolCalls", event.tool, event.source, isError ? "true" : "false").value += 1;
        this.#observe(this.#get("toolDuration", event.tool), event.durationMs / 1000);
        return;
      }
      case "run_error":
        // `error` is deliberately not a label: free text would explode cardinality.
        this.#get("runErrors", event.model).value += 1;
        return;
      case "run":
        return;
      default: {
        const unknown: never = event;
        throw new TypeError(`unknown metric event: ${JSON.stringify(unknown)}`);
      }
    }
  }

  /** Prometheus text exposition; every family's HELP/TYPE lines appear even without samples. */
  render(): string {
    this.#flush();
    const lines: string[] = [];
    for (const key of Object.keys(FAMILIES) as FamilyKey[]) {
      const family: Family = FAMILIES[key];
      lines.push(`# HELP ${family.name} ${family.help}`, `# TYPE ${family.name} ${family.type}`);
      const tree = this.#series.get(key);
      const series = (tree ? leaves(tree, family.labels.length) : []).sort((a, b) =>
        compareLabels(a.labels, b.labels),
      );
      for (const s of series) {
        const pairs = family.labels.map((name, i) => [name, s.labels[i] ?? ""] as const);
        if (family.type === "counter") {
          lines.push(`${family.name}${labelSet(pairs)} ${formatNumber(s.value)}`);
          continue;
        }
        let cumulative = 0;
        HISTOGRAM_BUCKETS.forEach((le, i) => {
          cumulative += s.buckets?.[i] ?? 0;
          lines.push(
            `${family.name}_bucket${labelSet([...pairs, ["le", formatNumber(le)]])} ${formatNumber(cumulative)}`,
          );
        });
        lines.push(
          `${family.name}_bucket${labelSet([...pairs, ["le", "+Inf"]])} ${formatNumber(s.value)}`,
        );
        lines.push(`${family.name}_sum${labelSet(pairs)} ${formatNumber(s.sum ?? 0)}`);
        lines.push(`${family.name}_count${labelSet(pairs)} ${formatNumber(s.value)}`);
      }
    }
    return `${lines.join("\n")}\n`;
  }

  // One map lookup per label value, with the caller's strings as keys: no key is built per
  // event (this runs several times per model turn and per tool call).
  #get(key: FamilyKey, ...labels: string[]): Series {
    let node = this.#series.get(key);
    if (!node) {
      node = new Map();
      this.#series.set(key, node);
    }
    const last = labels.length - 1;
    for (let i = 0; i < last; i++) {
      const label = labels[i] as string;
      let next = node.get(label) as LabelTree | undefined;
      if (!next) {
        next = new Map();
        node.set(label, next);
      }
      node = next;
    }
    const label = labels[last] as string;
    let series = node.get(label) as Series | undefined;
    if (!series) {
      series = { labels, value: 0 };
      node.set(label, series);
    }
    return series;
  }

  #observe(s: Series, seconds: number): void {
    const v = nonNegative(seconds);
    s.buckets ??= HISTOGRAM_BUCKETS.map(() => 0);
    const buckets = s.buckets;
    for (let i = 0; i < HISTOGRAM_BUCKETS.length; i++) {
      if (v <= (HISTOGRAM_BUCKETS[i] as number)) {
        buckets[i] = (buckets[i] ?? 0) + 1;
        break;
      }
    }
    s.value += 1;
    s.sum = (s.sum ?? 0) + v;
  }
}

type LabelTree = Map<string, LabelTree | Series>;

function leaves(tree: LabelTree, depth: number): Series[] {
  const out: Series[] = [];
  const walk = (node: LabelTree, level: number) => {
    for (const child of node.values()) {
      if (level === depth - 1) {
        out.push(child as Series);
      } else {
        walk(child as LabelTree, level + 1);
      }
    }
  };
  walk(tree, 0);
  return out;
}

function nonNegative(n: number): number {
  return Number.isFinite(n) && n > 0 ? n : 0;
}

// Code-unit order, not localeCompare: the output must not depend on the runtime's locale data.
function compareLabels(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i] ?? "";
    const y = b[i] ?? "";
    if (x !== y) {
      return x < y ? -1 : 1;
    }
  }
  return 0;
}

function labelSet(pairs: ReadonlyArray<readonly [string, string]>): string {
  if (pairs.length === 0) {
    return "";
  }
  return `{${pairs.map(([k, v]) => `${k}="${escapeLabelValue(v)}"`).join(",")}}`;
}

function escapeLabelValue(v: string): string {
  return v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

// Go's strconv.ParseFloat (what Prometheus uses) accepts JS's "1e-7" / "1e+21" forms.
function formatNumber(n: number): string {
  if (Number.isNaN(n)) {
    return "NaN";
  }
  if (n === Infinity) {
    return "+Inf";
  }
  if (n === -Infinity) {
    return "-Inf";
  }
  return String(n);
}
