"""Runs a tool under a range of memory caps (SPPERM_MEMORY_LIMIT) and checks
that each run either succeeds or ends cleanly: exit status 1, one line
`TOOL: error: FILE: ...` on stderr, and nothing left in the working
directory but the input (no package, no temporary directory).

Usage: memory_caps.py TOOL INPUT CAP... -- ARGS...   (run in an empty
directory holding INPUT; ARGS may name `out.spp`)."""

import os
import subprocess
import sys

tool, source = sys.argv[1], sys.argv[2]
split = sys.argv.index("--")
caps, args = sys.argv[3:split], sys.argv[split + 1:]
name = os.path.basename(tool)
for cap in caps:
    env = dict(os.environ, SPPERM_MEMORY_LIMIT=cap)
    run = subprocess.run([tool, source, *args], env=env, capture_output=True,
                         text=True, timeout=300)
    lines = run.stderr.splitlines()
    left = sorted(set(os.listdir(".")) - {os.path.basename(source)})
    if run.returncode == 0:
        print(f"{cap}: ok")
    elif (run.returncode == 1 and len(lines) == 1
          and lines[0].startswith(f"{name}: error: {source}: ")
          and all(not n.endswith(".spp") and ".tmp-" not in n
                  for n in left)):
        print(f"{cap}: clean error")
    else:
        print(f"{cap}: BAD exit {run.returncode}, left {left}, stderr:")
        print(run.stderr)
    for n in left:
        subprocess.run(["rm", "-rf", n], check=True)
