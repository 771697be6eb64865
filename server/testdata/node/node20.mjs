// Lets @modelcontextprotocol/conformance (built for Node 22, which added
// fs.globSync) run on Node 20: conformance.mjs starts the suite with
// `node --import ./node20.mjs`. On Node 22 and later this does nothing.
// The suite uses globSync only in its tier-check command, which mcpvec does
// not run, so the stand-in throws.
import fs from "node:fs";
import { register } from "node:module";

if (typeof fs.globSync !== "function") {
  register("./node20-hooks.mjs", import.meta.url);
}
