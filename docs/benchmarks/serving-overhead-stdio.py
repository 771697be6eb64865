#!/usr/bin/env python3
# serving-overhead-stdio.py BIN LIB QUERIES N: `BIN serve --stdio --read-only --db LIB`, 50 warm-up and then N
# search calls one at a time (the "text" of each JSON line of QUERIES in turn); prints serve's CPU ms per call.
# Measurement for docs/benchmarks/serving-overhead.md.
import json, os, subprocess, sys, time
bin_, lib, qpath, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
qs = [json.loads(l)["text"] for l in open(qpath) if l.strip()]
env = dict(os.environ, XDG_RUNTIME_DIR="/tmp/mcpvec-stdio-run")
os.makedirs(env["XDG_RUNTIME_DIR"], exist_ok=True)
p = subprocess.Popen([bin_, "serve", "--stdio", "--read-only", "--db", lib], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
def send(o): p.stdin.write((json.dumps(o) + "\n").encode()); p.stdin.flush()
def recv(): return json.loads(p.stdout.readline())
def cpu():
    f = open(f"/proc/{p.pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) * 1000 / os.sysconf("SC_CLK_TCK")
send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}); recv()
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
def call(i):
    send({"jsonrpc": "2.0", "id": i + 2, "method": "tools/call", "params": {"name": "search", "arguments": {"query": qs[i % len(qs)]}}})
    r = recv(); assert "result" in r and not r["result"].get("isError"), r
for i in range(50): call(i)
c0 = cpu()
for i in range(n): call(i)
print(f"{(cpu() - c0) / n:.3f}")
p.stdin.close(); p.wait()
