/**
 * `toolnexus-edge/cedar`: Cedar policies for `defineAgent({ policy })` (docs/policy.md,
 * "Cedar"), evaluated in the worker with `@cedar-policy/cedar-wasm`.
 *
 * workerd does not compile WebAssembly from bytes at run time, so the Cedar engine is
 * imported as a `.wasm` module (wrangler bundles it as CompiledWasm, compiled at deploy)
 * and instantiated with `initSync({ module })` on first use. Only a worker that imports this
 * entry carries the 4 MB engine, and it is instantiated when a Cedar policy is first checked,
 * not at startup: the main entry (`toolnexus-edge`) never imports it (bench/README §5).
 *
 * @example
 * import { cedarPolicy } from "toolnexus-edge/cedar";
 * defineAgent({ ..., policy: cedarPolicy({ policies: `permit (principal, action, resource);` }) });
 */
import * as cedar from "@cedar-policy/cedar-wasm/web";
import cedarWasm from "./cedar_wasm_bg.wasm";
import type { CedarApi } from "../edge/policy/cedar/api";
import {
  type CedarPolicyOptions,
  type CedarToolPolicy,
  cedarPolicyWith,
} from "../edge/policy/cedar/policy";

export type { CedarPolicyOptions, CedarToolPolicy } from "../edge/policy/cedar/policy";

let ready: CedarApi | undefined;

/** The Cedar engine, instantiated once per isolate from the bundled module. */
function engine(): CedarApi {
  if (!ready) {
    cedar.initSync({ module: cedarWasm });
    ready = cedar;
  }
  return ready;
}

/** A policy from Cedar text: `forbid` → deny, `permit` → allow, `@ask("group")` on a permit → ask. */
export function cedarPolicy(options: CedarPolicyOptions): CedarToolPolicy {
  return cedarPolicyWith(engine, options);
}
