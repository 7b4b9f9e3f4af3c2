/**
 * An MCP sign-in is the requester's own step (their tokens are stored): it reaches the run's
 * notifications and events, never an approver group's inbox or Slack (which are fed by the
 * inbox hooks). Like thread/remote/remote-tasks.ts `withoutRemoteTasks` for `remote_task` requests.
 */
import { isMcpSignIn } from "../../src/edge/oauth/sign-in-request";
import type { InboxHooks } from "../outbox/inbox";

export function withoutSignIns(hooks: InboxHooks): InboxHooks {
  return {
    ...hooks,
    surfaced: (run, request) => {
      if (!isMcpSignIn(request)) {
        hooks.surfaced(run, request);
      }
    },
    settled: (run, request, decision) => {
      if (!isMcpSignIn(request)) {
        hooks.settled(run, request, decision);
      }
    },
  };
}
