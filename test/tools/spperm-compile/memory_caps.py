"""Runs a tool under a range of memory caps (SPPERM_MEMORY_LIMIT) and checks
that each run either succeeds or ends cleanly: exit status 1, one line
`TOOL: error: INPUT[:LINE]: ...` about memory on stderr, and nothing new
left behind, in the working directory (an output, a temporary package
directory) or in TMPDIR (ptxas's directory).

Usage: memory_caps.py TOOL INPUT CAP... -- ARGS...   (run in a directory
of its own; ARGS may name outputs there). A CAP of the form A:B:S sweeps
from A to B MiB in steps of S."""

import os
import re
import shutil
import subprocess
import sys
import tempfile

tool, source = sys.argv[1], sys.argv[2]
split = sys.argv.index("--")
args = sys.argv[split + 1:]
caps = []
for cap in sys.argv[3:split]:
    if ":" in cap:
        first, last, step = (int(n) for n in cap.split(":"))
        caps += [f"{n}M" for n in range(first, last + 1, step)]
    else:
        caps.append(cap)
name = os.path.basename(tool)
# What running out of memory is reported as: the tools' own line, a
# reader's (with the line it was reading), LLVM's thread pool's, ptxas's.
memory = re.compile(
    rf"^{re.escape(name)}: error: {re.escape(source)}(:\d+)?: "
    r"(out of memory|pthread_create failed|ptxas failed .*Memory "
    r"allocation failure)")
before = set(os.listdir("."))
tmp = tempfile.mkdtemp(prefix="memory-caps-")
bad = 0
for cap in caps:
    env = dict(os.environ, SPPERM_MEMORY_LIMIT=cap, TMPDIR=tmp)
    run = subprocess.run([tool, source, *args], env=env, capture_output=True,
                         text=True, timeout=300)
    lines = run.stderr.splitlines()
    left = sorted(set(os.listdir(".")) - before) + sorted(os.listdir(tmp))
    if run.returncode == 0:
        outcome = "ok"
    elif (run.returncode == 1 and len(lines) == 1 and memory.match(lines[0])
          and not left):
        outcome = "clean error"
    else:
        outcome = "BAD"
        bad += 1
        print(f"{cap}: BAD exit {run.returncode}, left {left}, stderr:")
        print(run.stderr)
    if outcome != "BAD":
        print(f"{cap}: {outcome}")
    for n in set(os.listdir(".")) - before:
        shutil.rmtree(n) if os.path.isdir(n) else os.remove(n)
    for n in os.listdir(tmp):
        shutil.rmtree(os.path.join(tmp, n), ignore_errors=True)
shutil.rmtree(tmp, ignore_errors=True)
print(f"{len(caps)} caps, {bad} bad")
