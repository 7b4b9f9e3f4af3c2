/**
 * The chat protocols' reader of a run's event stream (src/edge/protocols/run-feed.ts) cuts
 * frames the same wherever the chunks split, a blank line across two chunks included, and
 * reads a 20 MB frame in many chunks at once (searching the whole buffer at each chunk took
 * minutes: the 20 MB tests in test/edge-mcp/large-values-protocols.test.ts).
 */
import { describe, expect, it } from "vitest";
import { frameSplitter } from "../../src/edge/protocols/run-feed";

const STREAM =
  ': connected\n\nid: 1\nevent: text\ndata: {"delta":"a\\nb"}\n\n: halted\n\nid: 2\nevent: done\ndata: {}\n\n';
const FRAMES = [
  ": connected",
  'id: 1\nevent: text\ndata: {"delta":"a\\nb"}',
  ": halted",
  "id: 2\nevent: done\ndata: {}",
];

function split(chunks: string[]): string[] {
  const frames = frameSplitter();
  return chunks.flatMap((chunk) => frames.push(chunk));
}

describe("run feed frames", () => {
  it("cuts the same frames at every split point, in two and three chunks", () => {
    for (let i = 0; i <= STREAM.length; i += 1) {
      expect(split([STREAM.slice(0, i), STREAM.slice(i)])).toEqual(FRAMES);
      for (let j = i; j <= STREAM.length; j += 7) {
        expect(split([STREAM.slice(0, i), STREAM.slice(i, j), STREAM.slice(j)])).toEqual(FRAMES);
      }
    }
  });

  it("reads a 20 MB frame in 16 KiB chunks whole", () => {
    const data = "x".repeat(20_000_000);
    const stream = `id: 1\nevent: text\ndata: ${data}\n\n`;
    const chunks: string[] = [];
    for (let at = 0; at < stream.length; at += 16 * 1024) {
      chunks.push(stream.slice(at, at + 16 * 1024));
    }
    const frames = split(chunks);
    expect(frames.length).toBe(1);
    expect(frames[0] === `id: 1\nevent: text\ndata: ${data}`).toBe(true);
  });
});
