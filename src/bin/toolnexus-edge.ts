#!/usr/bin/env node
/**
 * The package's one bin, `toolnexus-edge <command> …`: each command is a module exporting
 * `(argv, io) => Promise<exit code>`, listed in COMMANDS. Adding one (`sign-decision`) is
 * one import and one entry here.
 */
import { verifyReceipts, type CommandIo } from "./verify-receipts";

type Command = (argv: readonly string[], io: CommandIo) => Promise<number>;

const COMMANDS: Record<string, { summary: string; run: Command }> = {
  "verify-receipts": {
    summary: "check the signatures and chains of exported decision receipts",
    run: verifyReceipts,
  },
};

const io: CommandIo = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
  return [
    "usage: toolnexus-edge <command> [options]",
    "",
    ...Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`),
  ].join("\n");
}

const [name, ...rest] = process.argv.slice(2);
const command = name === undefined ? undefined : COMMANDS[name];
if (!command) {
  if (name !== undefined && name !== "-h" && name !== "--help") {
    io.err(`unknown command ${JSON.stringify(name)}`);
  }
  io.err(usage());
  process.exitCode = name === "-h" || name === "--help" ? 0 : 2;
} else {
  process.exitCode = await command.run(rest, io);
}
