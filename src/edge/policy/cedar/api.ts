/**
 * The part of `@cedar-policy/cedar-wasm` a Cedar policy uses, by its shape: the worker's
 * entry (`toolnexus-edge/cedar`, initialised from the bundled `.wasm` module) and the Node
 * CLI (`policy-replay`, the package's `nodejs` build) hand in their own copy.
 */
import type {
  AuthorizationAnswer,
  AuthorizationCall,
  CheckParseAnswer,
  PolicySet,
  PolicySetTextToPartsAnswer,
  PolicyToJsonAnswer,
  Policy,
} from "@cedar-policy/cedar-wasm/web";

export interface CedarApi {
  checkParsePolicySet(policies: PolicySet): CheckParseAnswer;
  policySetTextToParts(text: string): PolicySetTextToPartsAnswer;
  policyToJson(policy: Policy): PolicyToJsonAnswer;
  isAuthorized(call: AuthorizationCall): AuthorizationAnswer;
}
