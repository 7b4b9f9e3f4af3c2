/**
 * A2A push-notification config (set, get, list, delete) over the run's `callbackUrl`: a task
 * has at most one config (id `callback`), and what is POSTed to it is our usual signed
 * notification (src/edge/notify/notification.ts: `run.pending`, `run.reminder`, `run.escalated`, Standard
 * Webhooks signatures with NOTIFY_SECRET) whenever the task needs someone to act. The URL must
 * pass the same check as a callbackUrl (https, or listed in CALLBACK_ALLOW). Only the task's
 * starter may change it. Both spellings: v0.3's `tasks/pushNotificationConfig/*` with
 * `{ taskId, pushNotificationConfig: { id, url } }`, and 1.0's `*TaskPushNotificationConfig*`
 * with the flat `{ id, taskId, url }`.
 */
import { checkCallbackUrl } from "../../notify/callback-url";
import { notifySigningSecret, readConfig } from "../../settings";
import { sameCaller } from "../caller";
import { RPC, RpcError } from "./jsonrpc";
import { type A2AContext, taskRun } from "./methods";

export const PUSH_CONFIG_ID = "callback";

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

type Dialect = "v03" | "v1";

const shaped = (dialect: Dialect, taskId: string, url: string) =>
  dialect === "v1"
    ? { id: PUSH_CONFIG_ID, taskId, url }
    : { taskId, pushNotificationConfig: { id: PUSH_CONFIG_ID, url } };

/** The task a push method is about: v0.3 names it `id` (get/list/delete) or `taskId` (set); 1.0 `taskId`. */
function taskOf(dialect: Dialect, params: Record<string, unknown>, write: boolean): string {
  const value = dialect === "v1" || write ? params.taskId : (params.id ?? params.taskId);
  if (typeof value !== "string" || !value) {
    throw new RpcError(
      RPC.invalidParams,
      dialect === "v1" || write
        ? "params.taskId is required"
        : "params.id (the task id) is required",
    );
  }
  return value;
}

/** A config id the caller named must be ours (there is one per task). */
function checkConfigId(value: unknown): void {
  if (value !== undefined && value !== "" && value !== PUSH_CONFIG_ID) {
    throw new RpcError(
      RPC.invalidParams,
      `no push notification config ${JSON.stringify(value)}: a task has one, id "${PUSH_CONFIG_ID}"`,
    );
  }
}

async function ownedTask(ctx: A2AContext, taskId: string) {
  const found = await taskRun(ctx, taskId);
  if (!sameCaller(found.view.requestedBy, ctx.caller)) {
    throw new RpcError(
      RPC.unsupportedOperation,
      `task ${taskId} was started by another identity; only its requester may change its push config`,
    );
  }
  return found;
}

async function currentUrl(ctx: A2AContext, taskId: string): Promise<string | null> {
  const { stub } = await taskRun(ctx, taskId);
  return (await stub.callbackUrl(taskId))?.callbackUrl ?? null;
}

export async function setPushConfig(
  ctx: A2AContext,
  params: Record<string, unknown>,
  dialect: Dialect,
) {
  const taskId = taskOf(dialect, params, true);
  const config = dialect === "v1" ? params : params.pushNotificationConfig;
  if (!isRecord(config) || typeof config.url !== "string" || !config.url) {
    throw new RpcError(
      RPC.invalidParams,
      dialect === "v1" ? "params.url is required" : "params.pushNotificationConfig.url is required",
    );
  }
  checkConfigId(config.id);
  const settings = readConfig(ctx.env);
  const checked = checkCallbackUrl(config.url, settings.callbackAllow);
  if (!checked.ok) {
    throw new RpcError(RPC.invalidParams, `push notification url ${checked.reason}`);
  }
  notifySigningSecret(settings); // 500 config_error naming NOTIFY_SECRET
  const { stub } = await ownedTask(ctx, taskId);
  await stub.callbackUrl(taskId, { url: config.url });
  return shaped(dialect, taskId, config.url);
}

export async function getPushConfig(
  ctx: A2AContext,
  params: Record<string, unknown>,
  dialect: Dialect,
) {
  const taskId = taskOf(dialect, params, false);
  checkConfigId(dialect === "v1" ? params.id : params.pushNotificationConfigId);
  const url = await currentUrl(ctx, taskId);
  if (!url) {
    throw new RpcError(RPC.invalidParams, `task ${taskId} has no push notification config`);
  }
  return shaped(dialect, taskId, url);
}

export async function listPushConfigs(
  ctx: A2AContext,
  params: Record<string, unknown>,
  dialect: Dialect,
) {
  const taskId = taskOf(dialect, params, false);
  const url = await currentUrl(ctx, taskId);
  const configs = url ? [shaped(dialect, taskId, url)] : [];
  return dialect === "v1" ? { configs, nextPageToken: "" } : configs;
}

export async function deletePushConfig(
  ctx: A2AContext,
  params: Record<string, unknown>,
  dialect: Dialect,
) {
  const taskId = taskOf(dialect, params, false);
  checkConfigId(dialect === "v1" ? params.id : params.pushNotificationConfigId);
  const { stub } = await ownedTask(ctx, taskId);
  await stub.callbackUrl(taskId, { url: null });
  return dialect === "v1" ? {} : null;
}
