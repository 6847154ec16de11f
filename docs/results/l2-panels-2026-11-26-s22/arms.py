"""Per matrix and K: the time of every package arm (spperm-verify bench lines).

python3 arms.py sweep.verify.log.xz   (or rule.verify.log.xz)
An arm is the package name after the matrix's (e.g. k128-s4: compiled with
--k 128 --k-slices 4; csr.identity: the default package, K buckets).
"""
import collections
import lzma
import re
import sys

times = collections.defaultdict(dict)
library = {}
for line in lzma.open(sys.argv[1], 'rt'):
    if not line.startswith('bench '):
        continue
    fields = dict(re.findall(r'(\w+)=(\S+)', line))
    matrix, arm = line.split()[1].split('/')[-1][:-len('.spp')].split('.', 1)
    k = int(fields['K'])
    times[(matrix, k)][arm] = float(fields['spperm_ms'])
    library[(matrix, k)] = float(fields['cusparse_ms'])
for (matrix, k), arms in sorted(times.items()):
    print(f'{matrix:9} K={k:<3} cuSPARSE={library[(matrix, k)]:.3f} ' +
          ' '.join(f'{a}={t:.3f}' for a, t in sorted(arms.items())))
