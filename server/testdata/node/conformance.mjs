// Runs the MCP conformance suite (@modelcontextprotocol/conformance, pinned
// in package.json) against a running server and compares it with a
// baseline. Run by server/node_test.go:
//
//   node conformance.mjs http://127.0.0.1:PORT/mcp [BASELINE]
//
// BASELINE (default conformance-baseline.json) names the suite package and
// version, the server arguments (default: every server scenario the suite
// knows, its "all" suite, pending ones included) and what does not apply
// to mcpvec, with the reason: a whole scenario ("name") or one check of it
// ("name/check-id"). Every other scenario must report at least one SUCCESS
// and no FAILURE check. The run also fails when the baseline is stale: the
// installed suite is another version, it names a scenario the suite does
// not have, or a listed scenario or check now passes, so it must be removed.
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

const url = process.argv[2];
if (!url) {
  console.error("usage: node conformance.mjs <server /mcp url> [baseline.json]");
  process.exit(2);
}
const baselineFile = process.argv[3] ?? "conformance-baseline.json";

async function conformance(cli, args) {
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
async function listScenarios(cli) {
  const { code, stdout, stderr } = await conformance(cli, ["list", "--server"]);
  if (code !== 0) throw new Error(`conformance list failed (${code}): ${stderr}`);
  return stdout
    .split("\n")
    .map((l) => l.match(/^\s+-\s+(\S+)(\s+\[[^\]]*\])?\s*$/))
    .filter(Boolean)
    .map((m) => m[1]);
}

// Runs the scenarios in one process and reads each checks.json, which the
// suite writes to <dir>/server-<scenario>-<timestamp>/.
async function runSuite(cli, args, dir) {
  const res = await conformance(cli, ["server", "--url", url, ...args, "-o", dir]);
  const checks = new Map();
  for (const entry of await readdir(dir)) {
    const m = entry.match(/^server-(.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/);
    if (!m) continue;
    const file = path.join(dir, entry, "checks.json");
    checks.set(m[1], JSON.parse(await readFile(file, "utf8")));
  }
  return { checks, output: res.stdout + res.stderr };
}

// rerun runs one scenario again and returns its checks.
async function rerun(cli, name, args) {
  const dir = await mkdtemp(path.join(tmpdir(), "mcpvec-conformance-"));
  try {
    const { checks } = await runSuite(cli, ["--scenario", name, ...args], dir);
    return checks.get(name);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function summarize(list) {
  const count = (s) => list.filter((c) => c.status === s).length;
  return { success: count("SUCCESS"), failure: count("FAILURE"), warning: count("WARNING") };
}

// judge compares one scenario's checks with the baseline; it returns the
// line to print and the problems found.
function judge(name, list, notApplicable) {
  const reason = notApplicable[name];
  if (!list) {
    if (reason) return { line: `n/a   ${name}: ${reason} (no results)`, problems: [] };
    return { line: `MISS  ${name}`, problems: [`${name}: no results (the suite could not run it)`] };
  }
  const s = summarize(list);
  const tally = `${s.success} passed, ${s.failure} failed, ${s.warning} warnings`;
  if (reason) {
    const problems = s.failure === 0 && s.success > 0 ? [`${name} is in the baseline but now passes (${tally}); remove it`] : [];
    return { line: `n/a   ${name}: ${reason} [${tally}]`, problems };
  }
  const failed = list.filter((c) => c.status === "FAILURE");
  const excused = failed.filter((c) => notApplicable[`${name}/${c.id}`]);
  const problems = failed
    .filter((c) => !notApplicable[`${name}/${c.id}`])
    .map((c) => `${name}: ${c.id}: ${c.errorMessage ?? c.description}`);
  for (const key of Object.keys(notApplicable).filter((k) => k.startsWith(`${name}/`))) {
    if (!failed.some((c) => `${name}/${c.id}` === key)) problems.push(`${key} is in the baseline but did not fail; remove it`);
  }
  if (s.success === 0 && failed.length === 0) {
    problems.push(`${name} passed no check (${tally}); if it does not apply, list it in the baseline with the reason`);
  }
  const mark = problems.length > 0 ? "FAIL " : "pass ";
  const lines = [`${mark} ${name} [${tally}${excused.length ? `, ${excused.length} expected` : ""}]`];
  for (const c of excused) lines.push(`      expected ${c.id}: ${notApplicable[`${name}/${c.id}`]}`);
  for (const w of list.filter((c) => c.status === "WARNING")) lines.push(`      warning ${w.id}: ${w.errorMessage ?? w.description}`);
  return { line: lines.join("\n"), problems };
}

async function main() {
  const baseline = JSON.parse(await readFile(path.join(here, baselineFile), "utf8"));
  const pkg = baseline.package ?? "@modelcontextprotocol/conformance";
  const pkgDir = path.join(here, "node_modules", ...pkg.split("/"));
  const cli = path.join(pkgDir, "dist", "index.js");
  const installed = JSON.parse(await readFile(path.join(pkgDir, "package.json"), "utf8")).version;
  const notApplicable = baseline.notApplicable ?? {};
  const known = await listScenarios(cli);
  const dir = await mkdtemp(path.join(tmpdir(), "mcpvec-conformance-"));
  const problems = [];
  if (installed !== baseline.suiteVersion) problems.push(`${baselineFile} is for suite ${baseline.suiteVersion}, ${pkg} is ${installed}`);
  let scenarios = known;
  try {
    const { checks, output } = await runSuite(cli, baseline.serverArgs ?? ["--suite", "all"], dir);
    // With serverArgs the suite picks the scenarios (e.g. those a spec
    // revision requires); without, every scenario it knows must report.
    if (baseline.serverArgs) scenarios = [...checks.keys()].sort();
    for (const key of Object.keys(notApplicable)) {
      if (!known.includes(key.split("/")[0])) problems.push(`baseline names unknown scenario ${key}`);
    }
    for (const name of scenarios) {
      let j = judge(name, checks.get(name), notApplicable);
      if (j.problems.length > 0 && checks.has(name)) {
        // Some checks wait a fixed, short time (800 ms for a listen
        // stream's first frame); on a loaded machine run a failing
        // scenario once more, alone. A real failure fails twice.
        j = judge(name, await rerun(cli, name, baseline.retryArgs ?? []), notApplicable);
        j.line = j.line.replace("]", "] (second run)");
      }
      console.log(j.line);
      problems.push(...j.problems);
    }
    if (problems.length > 0 && process.env.MCPVEC_CONFORMANCE_VERBOSE) console.log(output);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  if (problems.length > 0) {
    console.log(`\n${problems.length} problem(s):\n- ${problems.join("\n- ")}`);
    process.exit(1);
  }
  const whole = Object.keys(notApplicable).filter((k) => !k.includes("/")).length;
  const partial = Object.keys(notApplicable).length - whole;
  console.log(
    `\nall applicable scenarios pass (${scenarios.length - whole} of ${scenarios.length}, ${partial} checks expected to fail; ${pkg} ${installed} ${(baseline.serverArgs ?? ["--suite", "all"]).join(" ")})`,
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
