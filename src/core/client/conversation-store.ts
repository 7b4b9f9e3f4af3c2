import type { Message } from "../types";

/** Where `ask()` keeps each conversation's transcript between calls. Async so it can be durable. */
export interface ConversationStore {
  get(id: string): Promise<Message[] | undefined> | Message[] | undefined;
  set(id: string, messages: Message[]): Promise<void> | void;
  delete(id: string): Promise<void> | void;
}

/** The default store: a Map in memory, holding copies so callers cannot mutate stored turns. */
export function memoryConversationStore(): ConversationStore & { ids(): string[] } {
  const conversations = new Map<string, Message[]>();
  return {
    get: (id) => {
      const stored = conversations.get(id);
      return stored && structuredClone(stored);
    },
    set: (id, messages) => void conversations.set(id, structuredClone(messages)),
    delete: (id) => void conversations.delete(id),
    ids: () => [...conversations.keys()],
  };
}
