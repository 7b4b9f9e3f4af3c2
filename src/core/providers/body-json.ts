/**
 * Request bodies as JSON text. The tool list is the largest part of most bodies and the
 * same on every turn, so each tool's JSON is kept per tool object and spliced in: a
 * turn serializes only what changed (the messages). A tool object is read again when
 * its name, description or inputSchema is replaced; a schema changed in place is not
 * noticed (tools are treated as immutable once defined, as everywhere in the kernel).
 */
import type { Tool } from "../types";
import type { ModelRequest } from "./model";

interface CachedTool {
  name: string;
  description: string;
  inputSchema: unknown;
  json: string;
}

/** One style's tool JSON cache: `convert` gives the wire form of one tool. */
export function toolJsonCache(convert: (tool: Tool) => unknown): (tools: Tool[]) => string {
  const cache = new WeakMap<Tool, CachedTool>();
  return (tools) => {
    let out = "[";
    for (let i = 0; i < tools.length; i++) {
      const tool = tools[i] as Tool;
      let entry = cache.get(tool);
      if (
        !entry ||
        entry.name !== tool.name ||
        entry.description !== tool.description ||
        entry.inputSchema !== tool.inputSchema
      ) {
        entry = {
          name: tool.name,
          description: tool.description,
          inputSchema: tool.inputSchema,
          json: JSON.stringify(convert(tool)),
        };
        cache.set(tool, entry);
      }
      out += i === 0 ? entry.json : `,${entry.json}`;
    }
    return `${out}]`;
  };
}

/**
 * `head` as JSON with `"tools"` (already JSON) and then `tool_choice` appended, the key
 * order of the object form. `head` must not have its own `tools` key.
 *
 * Built member by member: cutting the closing brace off `JSON.stringify(head)` and
 * appending would be shorter, but slicing a large string and concatenating onto the slice
 * costs more than serializing the tools (≈ 0.8 ms extra for a 150 KB transcript). Joined
 * once at the end rather than grown with `+=`: `+=` leaves a rope of string pieces, which
 * Node's HTTP stack flattens inside the socket write (bench/README.md, fourth session).
 */
export function withTools(
  head: Record<string, unknown>,
  toolsJson: string,
  toolChoice: unknown,
): string {
  const parts = ["{"];
  for (const key in head) {
    const value = JSON.stringify(head[key]);
    // As JSON.stringify does for an object: members whose value has no JSON form are left out.
    if (value === undefined) {
      continue;
    }
    parts.push(parts.length > 1 ? "," : "", JSON.stringify(key), ":", value);
  }
  parts.push(parts.length > 1 ? "," : "", '"tools":', toolsJson);
  if (toolChoice !== undefined) {
    parts.push(',"tool_choice":', JSON.stringify(toolChoice));
  }
  parts.push("}");
  return parts.join("");
}

/**
 * A style's `body` (the object a `bodyTransform` receives) and `bodyText` (the JSON sent
 * otherwise) from its fixed members and its one-tool converter. Request params follow the
 * fixed members (the client has already dropped the reserved ones, request-params.ts);
 * `params.tool_choice`, set by `translate()`, else the style's default, goes out only with
 * tools. An empty tool list is omitted, with its tool_choice: providers reject `tools: []`.
 */
export function bodyBuilders(
  fixed: (request: ModelRequest) => Record<string, unknown>,
  convert: (tool: Tool) => unknown,
  /** The style's own `tool_choice` whenever tools go out (openai: "auto", as every toolnexus client sends). */
  defaultToolChoice?: unknown,
) {
  const toolsJson = toolJsonCache(convert);
  const split = (request: ModelRequest, extra?: Record<string, unknown>) => {
    const head = fixed(request);
    if (!request.params) {
      // Every turn of a client without requestParams: no rest object, no extra spread.
      return { head: extra ? Object.assign(head, extra) : head, toolChoice: defaultToolChoice };
    }
    // A tools param is never sent: the tools are the toolkit's (or none).
    const { tool_choice: toolChoice, tools: _tools, ...rest } = request.params;
    return { head: Object.assign(head, rest, extra), toolChoice: toolChoice ?? defaultToolChoice };
  };
  return {
    body(request: ModelRequest): Record<string, unknown> {
      const { head, toolChoice } = split(request);
      if (!request.tools.length) {
        return head;
      }
      return {
        ...head,
        tools: request.tools.map(convert),
        ...(toolChoice === undefined ? {} : { tool_choice: toolChoice }),
      };
    },
    bodyText(request: ModelRequest, extra?: Record<string, unknown>): string {
      const { head, toolChoice } = split(request, extra);
      return request.tools.length
        ? withTools(head, toolsJson(request.tools), toolChoice)
        : JSON.stringify(head);
    },
  };
}
