/** The one reader of the worker's environment (docs/architecture.md §1). */
export * from "./core";
