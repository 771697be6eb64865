// node:fs as the conformance suite sees it on Node 20 (see node20.mjs).
import fs from "node:fs";

export * from "node:fs";
export default fs;

export function globSync() {
  throw new Error("fs.globSync needs Node 22; the conformance suite uses it only for tier-check");
}
