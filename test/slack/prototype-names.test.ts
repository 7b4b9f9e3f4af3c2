// Issue 37 for Slack interactions: a prototype name as the payload type, an action id, a
// modal's callback id, or as keys of the button value and the modal state is acknowledged or
// refused cleanly (never a 500), decides nothing, and no body carries a secret.
import { describe, expect, it } from "vitest";
import { SELF } from "cloudflare:test";
import { BASE } from "../helpers/edge";
import { slackSignedHeaders } from "../helpers/slack";
import { leakedSecrets, PROTOTYPE_NAMES, prototypeKeysObject } from "../helpers/prototype-names";

async function interact(payloadJson: string): Promise<Response> {
  const body = `payload=${encodeURIComponent(payloadJson)}`;
  return SELF.fetch(`${BASE}/slack/interactions`, {
    method: "POST",
    headers: await slackSignedHeaders(body),
    body,
  });
}

const user = { id: "U1", team_id: "T1" };

async function expectClean(response: Response, what: string) {
  const text = await response.text();
  expect(leakedSecrets(text), `${what}: ${text}`).toEqual([]);
  expect(response.status, `${what}: ${text}`).toBeLessThan(500);
  if (response.status >= 400) {
    expect(JSON.parse(text).error.code, `${what}: ${text}`).toEqual(expect.any(String));
  }
}

describe("Slack interactions with prototype names", () => {
  it("answers every prototype name as a type, action id, callback id or key without a 500", async () => {
    for (const name of PROTOTYPE_NAMES) {
      await expectClean(
        await interact(JSON.stringify({ type: name, user, team: { id: "T1" } })),
        `type ${name}`,
      );
      await expectClean(
        await interact(
          JSON.stringify({
            type: "block_actions",
            user,
            team: { id: "T1" },
            container: { channel_id: "C1", message_ts: "1.2" },
            actions: [{ action_id: name, value: JSON.stringify({ runId: name, requestId: name }) }],
          }),
        ),
        `action ${name}`,
      );
      await expectClean(
        await interact(
          JSON.stringify({
            type: "block_actions",
            user,
            team: { id: "T1" },
            container: { channel_id: "C1", message_ts: "1.2" },
            actions: [
              {
                action_id: "toolnexus_approve",
                value: JSON.stringify({ runId: name, requestId: name }),
              },
            ],
          }),
        ),
        `approve run ${name}`,
      );
      await expectClean(
        await interact(
          JSON.stringify({
            type: "view_submission",
            user,
            team: { id: "T1" },
            view: {
              callback_id: name,
              private_metadata: "{}",
              state: { values: {} },
            },
          }),
        ),
        `callback ${name}`,
      );
    }
    // Keys: the button value, the modal's metadata and its state values.
    await expectClean(
      await interact(
        `{"type":"block_actions","user":{"id":"U1","team_id":"T1"},"team":{"id":"T1"},"container":{},"actions":[{"action_id":"toolnexus_approve","value":${JSON.stringify(prototypeKeysObject('"x"'))}}]}`,
      ),
      "button value with prototype keys",
    );
    await expectClean(
      await interact(
        `{"type":"view_submission","user":{"id":"U1","team_id":"T1"},"team":{"id":"T1"},"view":{"callback_id":"toolnexus_decline_reason","private_metadata":${JSON.stringify(prototypeKeysObject('"x"'))},"state":{"values":${prototypeKeysObject(prototypeKeysObject('{"value":"x"}'))}}}}`,
      ),
      "modal with prototype keys",
    );
  });
});
