// Types for the TypeScript tests that import port.mjs (test/scripts).
export function portTaken(port: number): Promise<boolean>;
export function requestedPort(args: string[]): number;
