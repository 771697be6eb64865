// Module resolve hook registered by node20.mjs: the conformance suite's (either pinned copy)
// `import ... from "fs"` gets node20-fs.mjs (all of node:fs plus a globSync
// stand-in); every other import resolves as usual.
const shim = new URL("./node20-fs.mjs", import.meta.url).href;

export async function resolve(specifier, context, next) {
  const fromSuite = /\/node_modules\/(@modelcontextprotocol\/)?conformance[^/]*\//.test(context.parentURL ?? "");
  if (fromSuite && (specifier === "fs" || specifier === "node:fs")) {
    return { url: shim, shortCircuit: true };
  }
  return next(specifier, context);
}
