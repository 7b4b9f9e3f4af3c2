// node:fs plus `globSync`, which Node 20 lacks (the conformance CLI uses it only to read reports).
import fs from "node:fs";

export * from "node:fs";
export default fs;
export const globSync =
  fs.globSync ??
  (() => {
    throw new Error("fs.globSync needs Node 22; not needed to run scenarios");
  });
