/**
 * A chat page on the AI SDK's `useChat`, talking to the demo worker's `POST /v1/chat/support`.
 * The dev server (scripts/lib/chat-page.mjs) proxies /v1 to `wrangler dev` and adds the
 * Bearer token and `x-toolnexus-user` there, as an application's backend would: the token
 * never reaches the browser. The conversation id is in the address (?chat=…), so a reopened
 * tab loads the stored conversation and resumes a stream still running.
 */
import { useChat } from "@ai-sdk/react";
import { DefaultChatTransport, lastAssistantMessageIsCompleteWithApprovalResponses } from "ai";
import { useState } from "react";
import { createRoot } from "react-dom/client";
import { ToolPart } from "./tool-part.jsx";
import { waitingParts } from "./waiting.js";

const API = "/v1/chat/support";

function conversationId() {
  const url = new URL(window.location.href);
  let id = url.searchParams.get("chat");
  if (!id) {
    id = crypto.randomUUID();
    url.searchParams.set("chat", id);
    window.history.replaceState(null, "", url);
  }
  return id;
}

function Chat({ id, initialMessages }) {
  const [input, setInput] = useState("");
  const { messages, sendMessage, addToolApprovalResponse, status, error } = useChat({
    id,
    messages: initialMessages,
    resume: true,
    transport: new DefaultChatTransport({ api: API }),
    // The approval goes back (and the stream continues) as soon as the card is answered.
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  });
  const waiting = waitingParts(messages);
  return (
    <main>
      <h1>Support chat</h1>
      {messages.map((message) => (
        <div key={message.id} className={`message ${message.role}`}>
          {message.parts.map((part, n) => {
            const key = `${message.id}-${n}`;
            if (part.type === "text") {
              return <p key={key}>{part.text}</p>;
            }
            if (part.type.startsWith("tool-")) {
              return (
                <ToolPart
                  key={key}
                  part={part}
                  waiting={waiting}
                  onAnswer={(approved) =>
                    addToolApprovalResponse({ id: part.approval.id, approved })
                  }
                />
              );
            }
            return null;
          })}
        </div>
      ))}
      {error ? <p role="alert">Error: {error.message}</p> : null}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (input.trim()) {
            sendMessage({ text: input });
            setInput("");
          }
        }}
      >
        <input
          aria-label="Message"
          value={input}
          placeholder='Try "refund $120 on order 42"'
          onChange={(event) => setInput(event.target.value)}
          disabled={status !== "ready"}
        />
        <button type="submit" disabled={status !== "ready"}>
          Send
        </button>
      </form>
      <p id="status">{status}</p>
    </main>
  );
}

const id = conversationId();
const stored = await fetch(`${API}/${encodeURIComponent(id)}/messages`).then((r) => r.json());
createRoot(document.getElementById("root")).render(
  <Chat id={id} initialMessages={stored.messages ?? []} />,
);
