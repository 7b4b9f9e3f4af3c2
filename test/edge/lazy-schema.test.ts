/**
 * A made-up run id writes nothing: the thread object creates its schema on its first
 * write, and reads of a fresh object see "no such run". Storage written by the previous
 * schema version is upgraded in place and its suspended run stays decidable.
 */
import { describe, expect, it } from "vitest";
import { abortAllDurableObjects } from "cloudflare:test";
import { SCHEMA_VERSION } from "../../durable/storage/schema";
import { inThread, threadOfRun } from "../helpers/durable";
import {
  absentRunId,
  api,
  errorOf,
  pendingRun,
  signedDecision,
  uniqueThread,
  waitForStatus,
} from "../helpers/http";

/** What a thread's storage holds: its tables, its size, its alarm. */
function storageOf(threadId: string) {
  return inThread(threadId, async (_instance, state) => ({
    tables: state.storage.sql
      .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'")
      .toArray()
      .map((row) => row.name),
    size: state.storage.sql.databaseSize,
    alarm: await state.storage.getAlarm(),
  }));
}

/** A thread's tables with their columns (sorted: an upgrade appends what a fresh object declares) and its indexes. */
function schemaOf(threadId: string) {
  return inThread(threadId, async (_instance, state) => {
    const names = (query: string) =>
      state.storage.sql
        .exec<{ name: string }>(query)
        .toArray()
        .map((row) => row.name)
        .filter((name) => !name.startsWith("_") && !name.startsWith("sqlite_"))
        .sort();
    const tables = names("SELECT name FROM sqlite_master WHERE type = 'table'");
    return {
      columns: Object.fromEntries(
        tables.map((table) => [table, names(`SELECT name FROM pragma_table_info('${table}')`)]),
      ),
      indexes: names("SELECT name FROM sqlite_master WHERE type = 'index'"),
    };
  });
}

describe("unknown run ids write nothing", () => {
  it("50 GETs, decisions, cancels and event streams for made-up ids create no storage", async () => {
    const untouched = await storageOf(uniqueThread("never"));
    expect(untouched.tables).toEqual([]);

    const runIds = Array.from({ length: 50 }, () => absentRunId());
    for (const runId of runIds) {
      const response = await api(`/v1/runs/${runId}`);
      expect(response.status).toBe(404);
      expect((await errorOf(response)).code).toBe("run_not_found");
    }
    for (const runId of runIds.slice(0, 5)) {
      expect((await api(`/v1/runs/${runId}/events`)).status).toBe(404);
      expect((await api(`/v1/runs/${runId}/cancel`, { method: "POST" })).status).toBe(404);
      const decided = await signedDecision({ runId, requestId: "apr_x", decision: "approve" });
      expect(decided.status).toBe(404);
    }
    for (const runId of runIds) {
      expect(await storageOf(threadOfRun(runId))).toEqual({ ...untouched, tables: [] });
    }
  });

  it("the first write creates the whole schema", async () => {
    const { threadId } = await pendingRun("Please delete my account");
    const { tables } = await storageOf(threadId);
    expect(tables).toEqual(expect.arrayContaining(["meta", "runs", "messages", "decisions"]));
  });
});

describe("upgrade", () => {
  it("a run suspended under the previous schema version stays decidable", async () => {
    // A refund of $120: no approver rules, so an anonymous signed decision may decide it.
    const { runId, request, threadId } = await pendingRun("Refund order 42 for $120");
    // Make the storage what the previous version wrote: its tables, its columns, its version row.
    await inThread(threadId, (_instance, state) => {
      // added by version 13 (issue 42): whom a delegate stood in for, the expiry warnings' timers
      state.storage.sql.exec("ALTER TABLE votes DROP COLUMN on_behalf_of");
      state.storage.sql.exec("ALTER TABLE decisions DROP COLUMN on_behalf_of");
      state.storage.sql.exec("DROP TABLE IF EXISTS expiry_warnings");
      // added by version 12: which member got which approval email, the Teams cards
      state.storage.sql.exec("DROP TABLE IF EXISTS email_sends");
      state.storage.sql.exec("DROP TABLE IF EXISTS teams_cards");
      // added by version 11: the version a decision was recorded under
      state.storage.sql.exec("ALTER TABLE decisions DROP COLUMN agent_version");
      // added by version 10: the run's agent version, the receipts and their delivery
      state.storage.sql.exec("DROP TABLE IF EXISTS receipt_delivery");
      state.storage.sql.exec("DROP TABLE IF EXISTS receipts");
      state.storage.sql.exec("ALTER TABLE runs DROP COLUMN agent_version");
      state.storage.sql.exec("UPDATE meta SET value = '9' WHERE key = 'schema_version'");
    });
    expect(SCHEMA_VERSION).toBe(13); // storage of v9 is brought past v10 … v13 at once
    await abortAllDurableObjects(); // the next call constructs the object afresh: it upgrades

    const decided = await signedDecision({ runId, requestId: request.id, decision: "approve" });
    expect(decided.status).toBe(202);
    expect((await waitForStatus(runId, ["done"])).text).toBe("Done: Refunded $120 on order 42");
    const { tables } = await storageOf(threadId);
    expect(tables).toEqual(
      expect.arrayContaining([
        "notify_outbox",
        "receipts",
        "receipt_delivery",
        "email_sends",
        "teams_cards",
        "expiry_warnings",
      ]),
    );
    // The upgraded storage has exactly the shape a fresh object creates in one script.
    const fresh = await pendingRun("Refund order 43 for $120");
    expect(await schemaOf(threadId)).toEqual(await schemaOf(fresh.threadId));
    const version = await inThread(threadId, (_instance, state) =>
      state.storage.sql.exec("SELECT value FROM meta WHERE key = 'schema_version'").one(),
    );
    expect(version.value).toBe(String(SCHEMA_VERSION));
  });

  it("storage from before votes, handles and traces (v4) gets every later table and column", async () => {
    const { runId, request, threadId } = await pendingRun("Refund order 44 for $120");
    await inThread(threadId, (_instance, state) => {
      const sql = state.storage.sql;
      for (const table of ["receipt_delivery", "receipts", "agent_messages", "agent_handles"]) {
        sql.exec(`DROP TABLE IF EXISTS ${table}`);
      }
      for (const table of ["notify_outbox", "approvals", "refusals", "votes"]) {
        sql.exec(`DROP TABLE IF EXISTS ${table}`);
      }
      sql.exec("DROP TABLE IF EXISTS expiry_warnings");
      sql.exec("ALTER TABLE decisions DROP COLUMN on_behalf_of");
      sql.exec("ALTER TABLE decisions DROP COLUMN agent_version");
      for (const column of ["agent_version", "trace", "requested_by"]) {
        sql.exec(`ALTER TABLE runs DROP COLUMN ${column}`);
      }
      sql.exec("UPDATE meta SET value = '4' WHERE key = 'schema_version'");
    });
    await abortAllDurableObjects();

    const decided = await signedDecision({ runId, requestId: request.id, decision: "approve" });
    expect(decided.status).toBe(202);
    expect((await waitForStatus(runId, ["done"])).text).toBe("Done: Refunded $120 on order 44");
    const fresh = await pendingRun("Refund order 45 for $120");
    expect(await schemaOf(threadId)).toEqual(await schemaOf(fresh.threadId));
  });
});
