"""Imports spperm from the installation under PREFIX (argv[1]) alone, and
multiplies with it: prints where the package was imported from and whether
the product matches SciPy's."""

import glob
import os
import sys

prefix = sys.argv[1]
site = glob.glob(os.path.join(prefix, "lib", "python3.*", "site-packages"))
if len(site) != 1:
    sys.exit(f"expected one PREFIX/lib/python3.*/site-packages, found {site}")
# Only the installation: not the build tree's package, whatever the
# interpreter's own path holds.
sys.path = [site[0]] + [p for p in sys.path if "spperm" not in p
                        and not os.path.exists(os.path.join(p, "spperm"))]

import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402
import spperm  # noqa: E402

print(os.path.realpath(spperm.__file__))
a = sp.random(20, 30, density=0.2, random_state=1, format="csr",
              dtype=np.float32)
b = np.random.default_rng(1).standard_normal((30, 4)).astype(np.float32)
c = spperm.compile(a)(b)
print("max error below 1e-5:", float(abs(c - a @ b).max()) < 1e-5)
