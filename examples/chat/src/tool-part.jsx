import { waitingFor } from "./waiting.js";

/** One tool call: the AI SDK's approval-buttons pattern, plus where a group's decision waits. */
export function ToolPart({ part, waiting, onAnswer }) {
  const name = part.type.slice("tool-".length);
  const group = waitingFor(part, waiting);
  switch (part.state) {
    case "approval-requested":
      return (
        <section className="card" data-testid="approval-card">
          <p>{part.approval.requestReason ?? `Run ${name}?`}</p>
          <button type="button" onClick={() => onAnswer(true)}>
            Approve
          </button>
          <button type="button" onClick={() => onAnswer(false)}>
            Decline
          </button>
        </section>
      );
    case "approval-responded":
      return <section className="card">Answer sent…</section>;
    case "output-available":
      return (
        <section className="card done" data-testid="tool-output">
          {name}: {String(part.output)}
        </section>
      );
    case "output-denied":
      return <section className="card denied">{name}: declined</section>;
    case "output-error":
      return <section className="card denied">{part.errorText}</section>;
    default:
      return group ? (
        <section className="card waiting" data-testid="waiting-card">
          Waiting for {group.group ?? "an approver"} ({group.votes}/{group.needed}) —{" "}
          <a href={group.inboxUrl}>open the inbox</a>
        </section>
      ) : (
        <section className="card">{name}…</section>
      );
  }
}
