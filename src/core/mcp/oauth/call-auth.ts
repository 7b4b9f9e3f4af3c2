/**
 * What a tool call on a server with `oauth` does about sign-in: on the re-execution that
 * follows the person's answer it finishes the exchange first (then the same call runs
 * with the new token); when the call meets a 401 or a 403 `insufficient_scope` that a
 * refresh could not fix, the call suspends on an `authorization` request. Bounded: a
 * call that has just signed in and is refused again fails rather than asking again.
 */
import { pending } from "../../answers";
import { errorMessage } from "../../errors";
import type { Context, ToolResult } from "../../types";
import { authorizationRequiredIn } from "./challenge";
import type { OAuthSession } from "./session";

/** `ctx.answer` answers this session's sign-in: finish it. An error result when that fails. */
export async function finishSignIn(
  name: string,
  session: OAuthSession | undefined,
  ctx: Context,
): Promise<{ signedIn: boolean; failure?: ToolResult }> {
  const answer = ctx.answer;
  if (!session || !answer || !(await session.owns(answer.id))) {
    return { signedIn: false };
  }
  try {
    await session.finish(answer);
    return { signedIn: true };
  } catch (error) {
    return {
      signedIn: false,
      failure: {
        output: `${name} failed: sign-in to ${session.server} did not complete: ${errorMessage(error)}`,
        isError: true,
      },
    };
  }
}

/** The suspension for a call refused for want of authorization, or undefined when it was not that. */
export async function signInSuspension(
  name: string,
  session: OAuthSession | undefined,
  context: { error: unknown; ctx: Context; signedIn: boolean },
): Promise<ToolResult | undefined> {
  const { error } = context;
  const refused = authorizationRequiredIn(error);
  if (!refused || !session) {
    return undefined;
  }
  if (context.signedIn) {
    return {
      output: `${name} failed: ${refused.message}, even after signing in`,
      isError: true,
    };
  }
  try {
    return pending(await session.begin(refused.challenge, context.ctx.runId));
  } catch (cause) {
    return {
      output: `${name} failed: ${refused.message}; sign-in is not possible: ${errorMessage(cause)}`,
      isError: true,
    };
  }
}
