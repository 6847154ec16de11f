"""The tensor-core parts experiment: geomean over the layers of cuSPARSE time
/ spperm time per arm and K, the new kernel against the old, and the layers
where 3xTF32 beats both fp32 kernels.

python3 arms.py verify.log.xz
Arms (package name suffix): csr.identity; fp32-kK (bell/bsa, fp32);
x3-kK-old / x3-kK-new (bell/bsa --precision 3xtf32, before / with parts);
x3c-kK-old / x3c-kK-new (the same with --bell-columns condensed).
"""
import collections
import lzma
import math
import re
import sys

times = collections.defaultdict(dict)
library = {}
for line in lzma.open(sys.argv[1], 'rt'):
    if not line.startswith('bench '):
        continue
    fields = dict(re.findall(r'(\w+)=(\S+)', line))
    name = line.split()[1].split('/')[-1][:-len('.spp')]
    k = int(fields['K'])
    if name.endswith('.csr.identity'):
        matrix, arm = name[:-len('.csr.identity')], 'csr'
    else:
        matrix, arm = name.rsplit('.', 1)
        arm = arm.replace(f'-k{k}', '')
    times[(matrix, k)][arm] = float(fields['spperm_ms'])
    if 'cusparse_ms' in fields:
        library[(matrix, k)] = float(fields['cusparse_ms'])


def geomean(values):
    return math.exp(sum(map(math.log, values)) / len(values))


for k in (128, 512):
    keys = [key for key in times if key[1] == k]
    arms = sorted({arm for key in keys for arm in times[key]})
    speed = {arm: [library[key] / times[key][arm] for key in keys
                   if arm in times[key]] for arm in arms}
    print(f'K = {k}, {len(keys)} layers: ' + ', '.join(
        f'{arm} {geomean(v):.3f} (min {min(v):.2f})' for arm, v in speed.items()))
    for arm in ('x3', 'x3c'):
        ratio = [times[key][arm + '-old'] / times[key][arm + '-new'] for key in keys]
        print(f'  {arm}: new over old {geomean(ratio):.2f}x '
              f'(min {min(ratio):.2f}, max {max(ratio):.2f})')
    for arm in ('x3-new', 'x3c-new'):
        wins = [(key[0], min(times[key]['csr'], times[key]['fp32']) / times[key][arm])
                for key in keys if times[key][arm] < min(times[key]['csr'], times[key]['fp32'])]
        print(f'  {arm} faster than csr and fp32 bell on {len(wins)}: ' +
              ', '.join(f'{m.split("__")[-1][:40]} {r:.2f}x' for m, r in wins))
