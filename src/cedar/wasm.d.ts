/** A `.wasm` import, as wrangler bundles it (a CompiledWasm module: workerd compiles it at deploy). */
declare module "*.wasm" {
  const module: WebAssembly.Module;
  export default module;
}
