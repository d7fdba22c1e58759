#!/usr/bin/env python3
"""tessera-bound on the hand-made trace data/small.trace, against bounds computed by hand.

Classes: cpu (workers 0 and 1), cuda (worker 2). Types (codelet, footprint), mean END-START:
  potrf: tasks 1 and 6 on cpu, 200 and 100 us -> cpu 150 us, no cuda        (2 tasks)
  trsm:  task 3 on cpu 100 us, task 2 on cuda 100 us                         (2 tasks)
  gemm:  task 5 on cpu 180 us, task 4 on cuda 150 us                         (2 tasks)
Area bound: potrf must run on cpu (300 us of cpu work). The cuda worker takes what costs the
cpus most relative to it: gemm (180/150 = 1.2) before trsm (100/100 = 1). With every trsm on
cpu and b gemm on cpu: cuda = 150 (2 - b) <= T, cpu = 300 + 200 + 180 b <= 2 T; balanced when
300 - 150 b = 250 + 90 b, b = 5/24, T = 268.75 us.
Critical path (each task at its type's fastest: potrf 150, trsm 100, gemm 150; edges 99 -> 1
and 6 -> 100 name tasks outside the trace and are left out): 1 -> 2 -> 4 -> 5 -> 6
= 150 + 100 + 150 + 150 + 150 = 700 us.
Run: first submission (100 us) to last end (900 us) = 800 us.
"""
import json
import subprocess
import sys

tool, trace = sys.argv[1], sys.argv[2]
out = subprocess.run([tool, trace, "--json"], capture_output=True, text=True, check=True).stdout
b = json.loads(out)
expected = {"run_seconds": 800e-6, "area_bound_seconds": 268.75e-6,
            "critical_path_seconds": 700e-6, "critical_path_tasks": 5,
            "run_over_bound": 800 / 700}
bad = [f"{k}: {b[k]} != {v}" for k, v in expected.items() if abs(b[k] - v) > 1e-7 * v]
if bad:
    sys.exit("tessera-bound disagrees with the hand computation:\n  " + "\n  ".join(bad))
table = subprocess.run([tool, trace], capture_output=True, text=True, check=True).stdout
for needle in ("area bound", "critical-path bound", "potrf 4KiB", "gemm 12KiB"):
    if needle not in table:
        sys.exit(f"the table lacks '{needle}':\n{table}")
bad_trace = subprocess.run([tool, trace + ".missing"], capture_output=True, text=True)
if bad_trace.returncode != 1 or "cannot open" not in bad_trace.stderr:
    sys.exit(f"a missing trace: status {bad_trace.returncode}, {bad_trace.stderr!r}")
print("tessera-bound agrees with the hand computation")
