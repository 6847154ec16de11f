"""spperm: fast C = A · B for a fixed sparse matrix A, from Python.

Compile a matrix once, run it many times on torch, CuPy or NumPy arrays::

    import scipy.sparse as sp, torch, spperm
    A = sp.random(4096, 4096, density=0.01, format="csr", dtype="float32")
    pkg = spperm.compile(A)                 # or spperm.load("model.spp")
    C = pkg(torch.randn(4096, 128, device="cuda"))   # C = A @ B, on the GPU

See docs/Python.md; :mod:`spperm.torch` has ``SparseLinear``.
"""

from ._errors import (CompileError, CorruptPackageError, DeviceError,
                      DeviceMemoryError, InvalidArgumentError,
                      LayerNotFoundError, PackageIOError, SppermError,
                      UnsupportedError)
from ._package import (Layer, Package, compile, device_properties, inspect,
                       load, read_matrix)

__version__ = "0.1.0"

__all__ = [
    "CompileError", "CorruptPackageError", "DeviceError", "DeviceMemoryError",
    "InvalidArgumentError", "Layer", "LayerNotFoundError", "Package",
    "PackageIOError", "SppermError", "UnsupportedError", "compile",
    "device_properties", "inspect", "load", "read_matrix",
]
