"""The 6-batch floor of mode auto: for every csr/identity package of
ab.verify.log.xz whose layer is a shared .smtx matrix, t(--long-rows split) /
t(auto, before the floor) against the walk of the layer's longest row in its
own group of the row kernel (batches of 8 loads: ceil(L / (G x P)) x
ceil(G / 8), G = 8 lanes at K = 32, 32 at K = 128 and 512; P from partsFor
in LayerKernels.cpp).

python3 gate.py ab.verify.log.xz ../../../../shared/data/matrices > gate.txt
"""
import gzip, lzma, math, os, sys


def pow2ceil(v):
    v = max(v, 1)
    return 1 << (v - 1).bit_length()


def bitfloor(v):
    return 1 << (v.bit_length() - 1) if v > 0 else 0


def parts_for(rows, mean, lanes, threads=256, sms=132):
    target = sms * 32 * max(1, 32 // lanes)
    steps = pow2ceil(math.ceil(mean / lanes))
    groups = threads // lanes
    return max(1, min(bitfloor(target // rows), steps, groups & -groups))


def row_lengths(data, name):
    path = os.path.join(data, name.replace("__", "/")) + ".smtx.gz"
    if not os.path.exists(path):
        return None
    with gzip.open(path, "rt") as f:
        f.readline()
        ptr = list(map(int, f.readline().split()))
    return [ptr[i + 1] - ptr[i] for i in range(len(ptr) - 1)]


log, data = sys.argv[1], sys.argv[2]
t = {}
for line in lzma.open(log, "rt"):
    if not line.startswith("bench"):
        continue
    f = line.split()
    pkg = f[1].split("/suite/")[1]
    t[(pkg, int(f[3][2:]))] = float(line.split("spperm_ms=")[1].split()[0])
out = []
for (pkg, k), ms in t.items():
    if ".split." in pkg or ".csr.identity." not in pkg:
        continue
    base = (pkg.replace(".spp", ".split.spp"), k)
    n = row_lengths(data, pkg.split(".csr.")[0])
    if base not in t or n is None:
        continue
    lanes = 8 if k == 32 else 32
    mean = sum(n) / len(n)
    p = parts_for(len(n), mean, lanes)
    walk = math.ceil(max(n) / (lanes * p)) * math.ceil(lanes / 8)
    threshold = max(32 * p, int(4 * mean))
    out.append((walk, t[base] / ms, k, pkg[:60], max(n), p,
                sum(x > threshold for x in n)))
for r in sorted(out):
    print("batches %3d ratio %.3f K=%d %s L=%d P=%d long=%d" % r)
