// Types for vitest.config.ts and the tests that import isolated-config.mjs.
export function isolatedWranglerConfig(source: string, outDir: string): string;
