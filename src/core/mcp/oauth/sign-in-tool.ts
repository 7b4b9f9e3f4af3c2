/**
 * The stand-in tool of a server with `oauth` that could not be reached for want of a
 * sign-in: the model cannot call tools it has never seen, so the server offers one tool,
 * `<server>_sign_in`. Calling it suspends on the `authorization` request; the
 * re-execution with the person's answer finishes the exchange, connects, and registers
 * the server's real tools (the loop reads the tool list every turn).
 */
import { pending } from "../../answers";
import { errorMessage } from "../../errors";
import type { Tool } from "../../types";
import type { AuthChallenge } from "./challenge";
import type { OAuthSession } from "./session";

export interface SignInToolOptions {
  name: string;
  session: OAuthSession;
  challenge: AuthChallenge;
  /** Connects with the new token; resolves to the tools it registered. */
  connect(): Promise<string[]>;
}

export function signInTool(options: SignInToolOptions): Tool {
  const { session } = options;
  let connected: string[] | undefined;
  return {
    name: options.name,
    description: `Sign in to the MCP server "${session.server}" so that its tools become available. A person completes the sign-in in a browser; call this before using that server.`,
    inputSchema: { type: "object", properties: {} },
    source: `mcp:${session.server}`,
    async execute(_args, ctx = {}) {
      if (connected) {
        return {
          output: `already signed in to ${session.server}; tools: ${connected.join(", ")}`,
          isError: false,
        };
      }
      if (ctx.answer && (await session.owns(ctx.answer.id))) {
        try {
          await session.finish(ctx.answer);
          connected = await options.connect();
        } catch (error) {
          return {
            output: `sign-in to ${session.server} did not complete: ${errorMessage(error)}`,
            isError: true,
          };
        }
        return {
          output: `signed in to ${session.server}; its tools are now available: ${connected.join(", ") || "none"}`,
          isError: false,
        };
      }
      try {
        return pending(await session.begin(options.challenge, ctx.runId));
      } catch (error) {
        return {
          output: `sign-in to ${session.server} is not possible: ${errorMessage(error)}`,
          isError: true,
        };
      }
    },
  };
}
