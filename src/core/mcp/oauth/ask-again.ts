/**
 * A sign-in whose code the token endpoint refused as used or unknown (`invalid_grant`) is
 * asked again rather than failed. The case that matters: the process redeemed the code and
 * died before the tokens were stored; the resumed call holds the same answer, but a code is
 * good once, so only a new sign-in can finish it. The person gets a fresh link and the run is
 * `pending` again — the model is told nothing. Bounded: after MAX_ASKS_AGAIN such refusals in
 * a row, the refusal is the call's error.
 */
import type { Request } from "../../types";
import type { OAuthSession } from "./session";

export const MAX_ASKS_AGAIN = 3;

/** The token endpoint refused the code (`invalid_grant`): thrown by `OAuthSession.finish`. */
export class CodeRefusedError extends Error {
  constructor(
    message: string,
    /** How often the sign-in this code belonged to had been asked again already. */
    readonly askedAgain: number,
    /** The scope that sign-in asked for, asked for again. */
    readonly scope?: string,
  ) {
    super(message);
    this.name = "CodeRefusedError";
  }
}

/** The new sign-in request after a refused code; undefined for any other error, past the bound, or when a new sign-in cannot be made. */
export async function askAgain(
  session: OAuthSession,
  error: unknown,
  runId: string | undefined,
): Promise<Request | undefined> {
  if (!(error instanceof CodeRefusedError) || error.askedAgain >= MAX_ASKS_AGAIN) {
    return undefined;
  }
  try {
    const challenge =
      error.scope === undefined ? undefined : { status: 401 as const, scope: error.scope };
    return await session.begin(challenge, runId, error.askedAgain + 1);
  } catch {
    return undefined; // the refusal stands as the call's error
  }
}
