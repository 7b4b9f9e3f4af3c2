// Module resolve hook (see register.mjs): "fs" imported by the conformance package is fs-with-glob.mjs.
export async function resolve(specifier, context, next) {
  const fromConformance = context.parentURL?.includes("/@modelcontextprotocol/conformance/");
  if (fromConformance && (specifier === "fs" || specifier === "node:fs")) {
    return { url: new URL("./fs-with-glob.mjs", import.meta.url).href, shortCircuit: true };
  }
  return next(specifier, context);
}
