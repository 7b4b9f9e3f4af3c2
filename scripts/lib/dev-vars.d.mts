// Types for the TypeScript tests that import dev-vars.mjs (test/scripts).
export const ROOT: string;
export const DEV_VARS: string;
export const DEV_VARS_EXAMPLE: string;
export const GENERATED_SECRETS: Record<string, string>;
export const RAW_BASE64_SECRETS: Set<string>;
export function generateSecret(name: string): string;
export const DEV_DEFAULTS: Record<string, [string, string]>;
export function ensureDevVars(paths?: { file?: string; example?: string }): string[];
export function readDevVars(): { file: string; vars: Record<string, string> };
export function parseDotenv(text: string): Record<string, string>;
export function devCredentials(): {
  file: string;
  apiToken: string;
  webhookSecrets: string[];
  notifySecrets: string[];
  vars: Record<string, string>;
};
