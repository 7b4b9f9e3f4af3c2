/**
 * What every `invoke_agent` span of a client starts with: its name and its start attributes
 * (agent, provider, conversation, model, and which kind of segment). They are the same for
 * every run of the client, so they are built once (again only if the model changes), not per
 * run: a no-op tracer then costs a run one `startSpan` call and no attribute object. The
 * objects are frozen: a tracer reads them (the SDK and the edge tracer copy them) and never
 * owns them.
 */
import type { Attributes } from "./otel-shapes";
import { GEN_AI, OPERATION, TOOLNEXUS } from "./conventions";
import type { SegmentSettings } from "./spans";

/** `start` (a new run), `resume` (with an answer) or `continue` (crash recovery). */
export type SegmentKind = "start" | "resume" | "continue";

export class SegmentStarts {
  /** `invoke_agent {agent}`, or `invoke_agent` without an agent name. */
  readonly name: string;
  private model: string | undefined;
  private byKind: Readonly<Record<SegmentKind, Attributes>> | undefined;

  constructor(private readonly settings: SegmentSettings) {
    const agent = settings.options.agentName;
    this.name = agent ? `${OPERATION.invokeAgent} ${agent}` : OPERATION.invokeAgent;
  }

  attributes(model: string, kind: SegmentKind): Attributes {
    if (this.byKind === undefined || model !== this.model) {
      this.model = model;
      this.byKind = {
        start: this.build(model, "start"),
        resume: this.build(model, "resume"),
        continue: this.build(model, "continue"),
      };
    }
    return this.byKind[kind];
  }

  private build(model: string, kind: SegmentKind): Attributes {
    const { settings } = this;
    const { options } = settings;
    return Object.freeze({
      [GEN_AI.operation]: OPERATION.invokeAgent,
      [GEN_AI.provider]: settings.provider,
      [GEN_AI.agentName]: options.agentName,
      [GEN_AI.agentId]: options.agentId,
      [GEN_AI.conversationId]: options.conversationId,
      [GEN_AI.requestModel]: model,
      [TOOLNEXUS.segment]: kind,
    });
  }
}
