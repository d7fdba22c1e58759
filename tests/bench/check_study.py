#!/usr/bin/env python3
"""Runs `tessera-bench study --tiny --json` and checks that its counters add up: a row per
workload and policy; per run, the links' bytes and transfers sum to the totals; a link of the
block-cut workloads (saxpy's equal blocks, Jacobi's equal tiles) moves whole blocks, so its
bytes are its transfers times a block's bytes; hit ratios lie in [0, 1]; the ratio is the
peer's time over the policy's.
    check_study.py <tessera-bench> [extra options]"""
import json
import math
import subprocess
import sys

bench = sys.argv[1]
policies = ["ws", "dws", "law", "dmdas"]
cmd = [bench, "study", "--tiny", "--json", "--sched", ",".join(policies)] + sys.argv[2:]
out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
rows = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


seen = {(r["variant"], r["sched"]) for r in rows}
for workload in ["saxpy", "jacobi", "cholesky", "lu"]:
    for policy in policies:
        check((workload, policy) in seen, f"no row for {workload} under {policy}")

# the --tiny sizes of bench/study.cpp: 16384 floats in 8 blocks; a 64 x 64 grid in 4 x 4 tiles
block_bytes = {"saxpy": 16384 // 8 * 4, "jacobi": (64 // 4) ** 2 * 8}
for r in rows:
    name = f'{r["variant"]} under {r["sched"]}'
    links = {k[: -len("_bytes")] for k in r if k.startswith("link") and k.endswith("_bytes")}
    bytes_sum = sum(r[l + "_bytes"] for l in links)
    transfers_sum = sum(r[l + "_transfers"] for l in links)
    check(math.isclose(bytes_sum, r["bytes"]), f"{name}: links' bytes {bytes_sum} != {r['bytes']}")
    check(math.isclose(transfers_sum, r["transfers"]),
          f"{name}: links' transfers {transfers_sum} != {r['transfers']}")
    if r["variant"] in block_bytes:
        for l in links:
            check(math.isclose(r[l + "_bytes"], r[l + "_transfers"] * block_bytes[r["variant"]]),
                  f"{name}: {l} moved {r[l + '_bytes']} bytes in {r[l + '_transfers']} copies "
                  f"of {block_bytes[r['variant']]}")
    check(r["tasks"] > 0 and 0 <= r["hit_ratio"] <= 1,
          f"{name}: {r['tasks']} tasks, hit ratio {r['hit_ratio']}")
    check(math.isclose(r["ratio"], r["peer_seconds"] / r["seconds"], rel_tol=1e-3),
          f"{name}: ratio {r['ratio']} is not ws's time over its own")

print(f"check_study: {len(rows)} rows, {len(failures)} failures")
for f in failures:
    print("  " + f)
sys.exit(1 if failures or not rows else 0)
