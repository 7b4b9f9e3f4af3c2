import type {
  CompensationContext,
  Context,
  InputSchema,
  JsonSchema,
  Tool,
  ToolResult,
} from "../types";
import { argsValidator, toJsonSchema } from "../schema";
import { errorMessage } from "../errors";
import { checkMaxOutputBytes } from "../loop/tool-output";

/**
 * The arguments of a tool whose author declared no type: loose on purpose, so the untyped
 * `run: ({ orderId, amount }) => …` and `when: (a) => a.amount > 50` of the docs compile (docs/kernel.md).
 * Give `Args` for checked arguments (the schema validates them at run time either way).
 */
// biome-ignore lint/suspicious/noExplicitAny: the public default for undeclared tool arguments; `unknown` would reject the documented untyped usage (docs/kernel.md)
export type UntypedArgs = any;

export interface DefineToolOptions<Args = UntypedArgs> {
  name: string;
  description: string;
  /** A zod schema or a JSON-Schema object; arguments are validated against it before `run`. */
  inputSchema?: InputSchema;
  /** A string return is the output; a `ToolResult` is passed through; a thrown error becomes an error result. */
  run(
    args: Args,
    ctx: Context,
  ): Promise<string | ToolResult | unknown> | string | ToolResult | unknown;
  source?: string;
  /**
   * The most UTF-8 bytes of this tool's output the model is sent, overriding the client's
   * (or agent's) `maxToolOutputBytes`; `Infinity`: no bound. See docs/agents.md.
   */
  maxOutputBytes?: number;
  /**
   * Takes back what a completed call did, with its arguments and result (a refund's reversal):
   * `client.compensate` and the edge's undo call it, in reverse order, once per call. Return
   * like `run`; a throw or an error result is a failure (retried, then reported). docs/undo.md.
   */
  compensate?(
    args: Args,
    result: ToolResult,
    ctx: CompensationContext,
  ): Promise<string | ToolResult | unknown> | string | ToolResult | unknown;
}

/** Normalizes whatever a tool body returned into a `ToolResult`. */
export function toToolResult(value: unknown): ToolResult {
  if (typeof value === "string") {
    return { output: value, isError: false };
  }
  if (isToolResult(value)) {
    return value;
  }
  if (value === undefined) {
    return { output: "", isError: false };
  }
  return { output: JSON.stringify(value), isError: false };
}

export function isToolResult(value: unknown): value is ToolResult {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as ToolResult).output === "string" &&
    typeof (value as ToolResult).isError === "boolean"
  );
}

/**
 * A native tool. Bad arguments never reach `run`: the model gets an error result
 * naming every problem, so it can correct the call.
 * @example
 * const add = defineTool({
 *   name: "add", description: "Add two numbers",
 *   inputSchema: z.object({ a: z.number(), b: z.number() }),
 *   run: ({ a, b }) => String(a + b),
 * });
 */
export function defineTool<Args = UntypedArgs>(options: DefineToolOptions<Args>): Tool {
  if (typeof options.name !== "string" || options.name.length === 0) {
    throw new TypeError("defineTool: name must be a non-empty string");
  }
  checkMaxOutputBytes(options.maxOutputBytes, `defineTool(${options.name}): maxOutputBytes`);
  const schema = options.inputSchema ?? { type: "object", properties: {} };
  const validate = argsValidator(schema);
  let inputSchema: JsonSchema | undefined;
  return {
    name: options.name,
    description: options.description ?? "",
    // Converted when first read (the first model call), not here: a worker defines its
    // tools while it starts, and z.toJSONSchema was most of that cost (issue 26).
    get inputSchema(): JsonSchema {
      inputSchema ??= toJsonSchema(schema);
      return inputSchema;
    },
    source: options.source ?? "native",
    ...(options.maxOutputBytes === undefined ? {} : { maxOutputBytes: options.maxOutputBytes }),
    ...(options.compensate ? { compensate: compensation(options.name, options.compensate) } : {}),
    async execute(args: unknown, ctx: Context = {}): Promise<ToolResult> {
      const checked = validate(args ?? {});
      if (!checked.ok) {
        return {
          output: `invalid arguments for ${options.name}:\n${checked.problems.map((p) => `- ${p}`).join("\n")}`,
          isError: true,
        };
      }
      try {
        return toToolResult(await options.run(checked.value as Args, ctx));
      } catch (error) {
        return { output: `${options.name} failed: ${errorMessage(error)}`, isError: true };
      }
    },
  };
}

/** A tool's `compensate` as a `Tool` carries it: whatever it returns becomes a `ToolResult`, a throw an error result. */
function compensation<Args>(
  name: string,
  compensate: NonNullable<DefineToolOptions<Args>["compensate"]>,
): NonNullable<Tool["compensate"]> {
  return async (args, result, ctx) => {
    try {
      return toToolResult(await compensate(args as Args, result, ctx));
    } catch (error) {
      return { output: `compensating ${name} failed: ${errorMessage(error)}`, isError: true };
    }
  };
}
