// Runs the MCP conformance suite (@modelcontextprotocol/conformance, pinned
// in package.json) against a running server and compares it with
// conformance-baseline.json. Run by server/node_test.go:
//
//   node conformance.mjs http://127.0.0.1:PORT/mcp
//
// Every server scenario the suite knows (its "all" suite, pending ones
// included) is run. A scenario listed in the baseline does not apply to
// mcpvec (the reason is in the file); every other scenario must report at
// least one SUCCESS and no FAILURE check. The run also fails when the baseline is stale: it names a
// scenario the suite does not have, or a listed scenario now passes (at
// least one SUCCESS and no FAILURE), so it must be removed.
//
// Prints one line per scenario and exits 0 only when all is well.
import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));
const cli = path.join(here, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js");

const url = process.argv[2];
if (!url) {
  console.error("usage: node conformance.mjs <server /mcp url>");
  process.exit(2);
}

async function conformance(args) {
  try {
    // node20.mjs lets the suite (built for Node 22) run on Node 20.
    const { stdout, stderr } = await run(process.execPath, ["--import", path.join(here, "node20.mjs"), cli, ...args], {
      maxBuffer: 64 << 20,
      timeout: 150_000,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    if (typeof err.code !== "number") throw err; // killed or not started
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

// The suite's own list of server scenarios.
async function listScenarios() {
  const { code, stdout, stderr } = await conformance(["list", "--server"]);
  if (code !== 0) throw new Error(`conformance list failed (${code}): ${stderr}`);
  return stdout
    .split("\n")
    .map((l) => l.match(/^\s+-\s+(\S+)(\s+\[[^\]]*\])?\s*$/))
    .filter(Boolean)
    .map((m) => m[1]);
}

// Runs all scenarios in one process and reads each checks.json, which the
// suite writes to <dir>/server-<scenario>-<timestamp>/.
async function runSuite(dir) {
  const res = await conformance(["server", "--url", url, "--suite", "all", "-o", dir]);
  const checks = new Map();
  for (const entry of await readdir(dir)) {
    const m = entry.match(/^server-(.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/);
    if (!m) continue;
    const file = path.join(dir, entry, "checks.json");
    checks.set(m[1], JSON.parse(await readFile(file, "utf8")));
  }
  return { checks, output: res.stdout + res.stderr };
}

function summarize(list) {
  const count = (s) => list.filter((c) => c.status === s).length;
  return { success: count("SUCCESS"), failure: count("FAILURE"), warning: count("WARNING") };
}

async function main() {
  const baseline = JSON.parse(await readFile(path.join(here, "conformance-baseline.json"), "utf8"));
  const notApplicable = baseline.notApplicable ?? {};
  const scenarios = await listScenarios();
  const dir = await mkdtemp(path.join(tmpdir(), "mcpvec-conformance-"));
  let problems = [];
  try {
    const { checks, output } = await runSuite(dir);
    for (const name of Object.keys(notApplicable)) {
      if (!scenarios.includes(name)) problems.push(`baseline names unknown scenario ${name}`);
    }
    for (const name of scenarios) {
      const list = checks.get(name);
      const reason = notApplicable[name];
      if (!list) {
        const msg = `${name}: no results (the suite could not run it)`;
        if (reason) console.log(`n/a   ${name}: ${reason} (no results)`);
        else problems.push(msg);
        continue;
      }
      const s = summarize(list);
      const tally = `${s.success} passed, ${s.failure} failed, ${s.warning} warnings`;
      if (reason) {
        if (s.failure === 0 && s.success > 0) {
          problems.push(`${name} is in the baseline but now passes (${tally}); remove it from conformance-baseline.json`);
        }
        console.log(`n/a   ${name}: ${reason} [${tally}]`);
        continue;
      }
      if (s.failure > 0) {
        const failed = list.filter((c) => c.status === "FAILURE").map((c) => `${c.id}: ${c.errorMessage ?? c.description}`);
        problems.push(`${name}: ${tally}\n      ${failed.join("\n      ")}`);
        console.log(`FAIL  ${name} [${tally}]`);
        continue;
      }
      if (s.success === 0) {
        problems.push(`${name} passed no check (${tally}); if it does not apply, list it in conformance-baseline.json with the reason`);
        console.log(`EMPTY ${name} [${tally}]`);
        continue;
      }
      console.log(`pass  ${name} [${tally}]`);
      for (const w of list.filter((c) => c.status === "WARNING")) {
        console.log(`      warning ${w.id}: ${w.errorMessage ?? w.description}`);
      }
    }
    if (problems.length > 0 && process.env.MCPVEC_CONFORMANCE_VERBOSE) console.log(output);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  if (problems.length > 0) {
    console.log(`\n${problems.length} problem(s):\n- ${problems.join("\n- ")}`);
    process.exit(1);
  }
  console.log(`\nall applicable scenarios pass (${scenarios.length - Object.keys(notApplicable).length} of ${scenarios.length}; baseline ${baseline.suiteVersion})`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
