/**
 * Storage of values too large for one SQLite row (durable/storage/large/values.ts), inside a
 * thread's object: parts are written in the caller's transaction, so a failure between two
 * parts leaves nothing; a row's parts go when the row goes or its column is overwritten; a
 * write that kept no row keeps no parts; reads never write. The same values end to end through
 * every surface: test/edge-mcp/large-values.test.ts.
 */
import { describe, expect, it } from "vitest";
import { createLazySql, createSql, type SqlOptions } from "../../durable/storage/sql";
import { InboxStore } from "../../durable/inbox/store";
import type { InboxItem } from "../../src/edge/inbox/item";
import { hasSchema, migrate } from "../../durable/storage/schema";
import { RunStore } from "../../durable/storage/run-store";
import type { ToolMessage } from "../../durable/storage/records";
import { asciiText, bigText } from "../fixtures/big-values-agent";
import { inThread } from "../helpers/durable";
import { uniqueThread } from "../helpers/http";

const MB = 1_000_000;

/** A fresh thread's storage through the thread's own stores, with the large-value test seams. */
function inStorage<R>(
  fn: (tools: {
    store: RunStore;
    storage: DurableObjectStorage;
    count: (query: string) => number;
  }) => R,
  options: SqlOptions = {},
): Promise<R> {
  return inThread(uniqueThread("large"), (_instance, state) => {
    const sql = createLazySql(state.storage.sql, { migrate, hasSchema }, options);
    const count = (query: string) => Number(state.storage.sql.exec<{ n: number }>(query).one().n);
    return fn({ store: new RunStore(sql), storage: state.storage, count });
  });
}

const tables = "SELECT COUNT(*) AS n FROM sqlite_master WHERE name = 'value_chunks'";
/** Parts stored (none while no large value was ever written: no table). */
const partsIn = (count: (query: string) => number) =>
  count(tables) ? count("SELECT COUNT(*) AS n FROM value_chunks") : 0;

const newRun = (runId: string) => ({
  runId,
  threadId: runId.split(".")[0]!,
  agent: "support",
  input: "hello",
  publicUrl: "https://edge.test",
  now: Date.now(),
});

const toolMessage = (content: string): ToolMessage => ({
  role: "tool",
  toolCallId: "call_1",
  name: "read_file",
  content,
});

describe("large values in a thread's storage", () => {
  it("an inbox item with 3 MB of arguments is listed and read back whole", async () => {
    const args = { document: bigText(3 * MB) };
    const read = await inThread(uniqueThread("large"), (_instance, state) => {
      const inbox = new InboxStore(createSql(state.storage.sql));
      const item = {
        requestId: "apr_1",
        runId: "th_h.run_1",
        status: "open",
        version: 1,
        surfacedAt: new Date().toISOString(),
        args,
      } as unknown as InboxItem;
      inbox.apply([item]);
      return {
        listed: inbox.list({ status: "open", limit: 10 }).items[0]?.args,
        got: inbox.get("th_h.run_1", "apr_1")?.args,
      };
    });
    expect(JSON.stringify(read.listed) === JSON.stringify(args)).toBe(true);
    expect(JSON.stringify(read.got) === JSON.stringify(args)).toBe(true);
  });

  it("a failure between two parts of a 3 MB value leaves no row and no part", async () => {
    const text = bigText(3 * MB);
    const outcome = await inStorage(
      ({ store, storage, count }) => {
        let thrown: unknown;
        try {
          storage.transactionSync(() => {
            store.insertRun(newRun("th_a.run_1"));
            store.appendMessages("th_a.run_1", [{ role: "assistant", content: text }]);
          });
        } catch (error) {
          thrown = error;
        }
        return {
          thrown: String(thrown),
          runs: count("SELECT COUNT(*) AS n FROM sqlite_master WHERE name = 'runs'")
            ? count("SELECT COUNT(*) AS n FROM runs")
            : 0,
          chunkTable: count(tables),
        };
      },
      {
        largeValues: {
          afterPart: (seq) => {
            if (seq === 2) {
              throw new Error("the process died between two parts");
            }
          },
        },
      },
    );
    // The whole transaction is gone: the run, its messages, the parts and even the parts' table.
    expect(outcome).toEqual({
      thrown: "Error: the process died between two parts",
      runs: 0,
      chunkTable: 0,
    });
  });

  it("after a rolled-back first large value, the same storage stores the next one and still cleans up", async () => {
    const counts = await inStorage(({ store, storage, count }) => {
      store.insertRun(newRun("th_g.run_1"));
      // The first large value creates the parts' table and its triggers; the rollback takes them.
      expect(() =>
        storage.transactionSync(() => {
          store.putSlot("th_g.run_1", 0, toolMessage(bigText(MB)));
          throw new Error("a later write failed");
        }),
      ).toThrow("a later write failed");
      const afterRollback = count(tables);
      store.putSlot("th_g.run_1", 0, toolMessage(bigText(MB)));
      const stored = partsIn(count);
      store.clearSlots("th_g.run_1");
      return [afterRollback, stored, partsIn(count)];
    });
    expect(counts).toEqual([0, 2, 0]);
  });

  it("a call's whole output over 32 MiB is value_too_large before its row is written (the model may have been sent a prefix)", async () => {
    const limit = 32 * 1024 * 1024;
    await inStorage(({ store, count }) => {
      store.insertRun(newRun("th_h.run_1"));
      const entry = { id: "call_1", name: "read_file", args: {}, isError: false };
      expect(() =>
        store.appendToolCalls("th_h.run_1", [{ ...entry, output: asciiText(limit + 1) }]),
      ).toThrow(
        `the output of tool read_file is ${limit + 1} bytes, over the limit of ${limit} bytes (32 MiB)`,
      );
      expect(count("SELECT COUNT(*) AS n FROM tool_calls")).toBe(0);
      expect(partsIn(count)).toBe(0);
      store.appendToolCalls("th_h.run_1", [{ ...entry, output: asciiText(3 * MB) }]);
      expect(store.toolCalls("th_h.run_1")[0]?.output).toBe(asciiText(3 * MB));
    });
  });

  it("a 3 MB message is stored in parts and read back exactly, beside small ones stored inline", async () => {
    const text = bigText(3 * MB);
    const read = await inStorage(({ store, storage, count }) => {
      storage.transactionSync(() => {
        store.insertRun(newRun("th_b.run_1"));
        store.appendMessages("th_b.run_1", [
          { role: "assistant", content: text },
          { role: "assistant", content: "small" },
        ]);
      });
      return {
        messages: store.runMessages("th_b.run_1"),
        parts: partsIn(count),
        inline: count("SELECT COUNT(*) AS n FROM messages WHERE body LIKE '%small%'"),
      };
    });
    expect(read.messages.map((m) => m.content)).toEqual(["hello", text, "small"]);
    expect(read.parts).toBe(Math.ceil((3 * MB) / (512 * 1024)));
    expect(read.inline).toBe(1);
  });

  it("a value of exactly 32 MiB is stored in one transaction and read back whole", async () => {
    const size = 32 * 1024 * 1024;
    const read = await inStorage(({ store, storage, count }) => {
      const text = asciiText(size);
      storage.transactionSync(() => {
        store.insertRun(newRun("th_f.run_1"));
        store.appendMessages("th_f.run_1", [{ role: "assistant", content: text }]);
      });
      const back = store.runMessages("th_f.run_1")[1]?.content;
      return { same: back === text, length: back?.length, parts: partsIn(count) };
    });
    // 64 parts of 512 Ki units, and the JSON around the text spills into a 65th.
    expect(read).toEqual({ same: true, length: size, parts: 65 });
  }, 120_000);

  it("a row's parts go with it: a slot overwritten, then cleared, leaves no part", async () => {
    const counts = await inStorage(({ store, count }) => {
      store.insertRun(newRun("th_c.run_1"));
      store.putSlot("th_c.run_1", 0, toolMessage(bigText(3 * MB)));
      const first = partsIn(count);
      store.putSlot("th_c.run_1", 0, toolMessage(bigText(2 * MB)));
      const replaced = partsIn(count);
      const slot = store.slots("th_c.run_1")[0]?.content.length;
      store.clearSlots("th_c.run_1");
      return { first, replaced, slot, cleared: partsIn(count) };
    });
    expect(counts).toEqual({ first: 6, replaced: 4, slot: 2 * MB, cleared: 0 });
  });

  it("a run's text overwritten keeps only the new value's parts", async () => {
    const counts = await inStorage(({ store, count }) => {
      store.insertRun(newRun("th_d.run_1"));
      store.update("th_d.run_1", { text: bigText(3 * MB) }, Date.now());
      store.update("th_d.run_1", { text: "short now" }, Date.now());
      return { parts: partsIn(count), text: store.run("th_d.run_1")?.text };
    });
    expect(counts).toEqual({ parts: 0, text: "short now" });
  });

  it("a value that starts with NUL round-trips, and a read with a large bound value writes nothing", async () => {
    const odd = "\u0000chunked:not-a-reference";
    const read = await inStorage(({ store, count }) => {
      store.insertRun(newRun("th_e.run_1"));
      // JSON escapes NUL, so a message's body never starts with one: it stays inline.
      store.appendMessages("th_e.run_1", [{ role: "assistant", content: odd }]);
      const inline = partsIn(count);
      // A plain text column may: stored in parts, so it cannot pass for a reference.
      store.update("th_e.run_1", { text: odd }, Date.now());
      const stored = partsIn(count);
      expect(store.run(bigText(MB))).toBeUndefined();
      return {
        message: store.runMessages("th_e.run_1")[1]?.content,
        text: store.run("th_e.run_1")?.text,
        counts: [inline, stored, partsIn(count)],
      };
    });
    expect(read).toEqual({ message: odd, text: odd, counts: [0, 1, 1] });
  });

  it("an upsert its WHERE skipped keeps none of the parts it wrote", async () => {
    const counts = await inThread(uniqueThread("large"), (_instance, state) => {
      const sql = createLazySql(state.storage.sql, { migrate, hasSchema });
      sql`CREATE TABLE items (key TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL)`;
      const put = (version: number, body: string) =>
        sql`INSERT INTO items (key, version, body) VALUES ('a', ${version}, ${body})
          ON CONFLICT (key) DO UPDATE SET version = excluded.version, body = excluded.body
          WHERE excluded.version > items.version RETURNING key`.length;
      const count = () =>
        Number(
          state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM value_chunks").one().n,
        );
      const written = [put(2, bigText(MB)), count(), put(1, bigText(MB)), count()];
      return [...written, sql.one<{ body: string }>`SELECT body FROM items`?.body === bigText(MB)];
    });
    expect(counts).toEqual([1, 2, 0, 2, true]);
  });
});
