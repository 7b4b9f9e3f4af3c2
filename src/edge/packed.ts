/**
 * Large answers across the Durable Object RPC boundary. Workers RPC clones a value in one
 * piece and refuses one past 32 MiB serialized, so a run view or an event log that carries a
 * large value (a 20 MB model reply is ≈ 40 MB as UTF-16) crosses as JSON bytes in a stream,
 * which has no such cap. The object decides (it knows how much it read from storage); the
 * caller always unpacks, so a small answer costs what it did: a plain clone.
 */

/** A value sent as a stream of its JSON (UTF-8). */
export interface PackedJson {
  packedJson: ReadableStream<Uint8Array>;
}

/** What an RPC method that may answer large returns: the value, or the value packed. */
export type Packable<T> = T | PackedJson;

/**
 * Answers built from more than this many UTF-16 units of stored text cross as a stream:
 * well under the 32 MiB cap even if every unit clones as two bytes.
 */
export const PACK_AT_UNITS = 4 * 1024 * 1024;

const encoder = new TextEncoder();

export function packJson<T>(value: T): PackedJson {
  const bytes = encoder.encode(JSON.stringify(value));
  return {
    packedJson: new ReadableStream<Uint8Array>({
      start(controller) {
        // Parts of 1 MiB: a stream chunk is one message on the wire.
        for (let at = 0; at < bytes.length; at += 1 << 20) {
          controller.enqueue(bytes.subarray(at, at + (1 << 20)));
        }
        controller.close();
      },
    }),
  };
}

/** `value` as it should cross: packed when building it read more than {@link PACK_AT_UNITS}. */
export function packIfLarge<T>(unitsRead: number, value: T): Packable<T> {
  return unitsRead > PACK_AT_UNITS ? packJson(value) : value;
}

function isPacked(value: unknown): value is PackedJson {
  return typeof value === "object" && value !== null && "packedJson" in value;
}

/** The value, read back from its stream when it came packed. */
export async function unpack<T>(value: Packable<T>): Promise<T> {
  if (!isPacked(value)) {
    return value;
  }
  return JSON.parse(await new Response(value.packedJson).text()) as T;
}
