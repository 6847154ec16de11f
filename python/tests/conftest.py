"""Fixtures of the spperm Python tests (docs/Testing.md, "Python").

GPU tests use the ``gpu`` fixture: it skips them, with the reason, where the
runtime finds no usable GPU (pytest -rs lists the reasons).
"""

import os
import pathlib

import numpy as np
import pytest

import spperm

ROOT = pathlib.Path(__file__).resolve().parents[2]
INPUTS = ROOT / "test" / "Inputs"


@pytest.fixture(scope="session")
def gpu():
    """The runtime's GPU; skips the test where there is none."""
    try:
        return spperm.device_properties()
    except spperm.SppermError as e:
        pytest.skip(f"no GPU: {e}")


@pytest.fixture(scope="session")
def torch_cuda(gpu):
    """torch with CUDA; skips where torch has no CUDA device."""
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA device")
    return torch


def random_csr(rows, cols, density, seed, skew=False):
    """A random scipy CSR matrix (float32), optionally with a few long
    rows."""
    sp = pytest.importorskip("scipy.sparse")
    rng = np.random.default_rng(seed)
    m = sp.random(rows, cols, density=density, format="lil", dtype=np.float32,
                  random_state=rng)
    if skew and rows:
        for r in rng.choice(rows, size=max(1, rows // 50), replace=False):
            m[r, :] = rng.standard_normal(cols).astype(np.float32)
    return m.tocsr()


def reference(a, b):
    """A · B in float64."""
    return np.asarray(a.astype(np.float64) @ b.astype(np.float64))


def normwise_error(c, ref):
    scale = np.linalg.norm(ref)
    return np.linalg.norm(np.asarray(c, dtype=np.float64) - ref) / (
        scale if scale else 1.0)


@pytest.fixture(scope="session")
def small_package(tmp_path_factory):
    """A package of test/Inputs/small.mtx compiled once (csr, lpt)."""
    path = tmp_path_factory.mktemp("pkg") / "small.spp"
    spperm.compile(INPUTS / "small.mtx", strategy="lpt", format="csr",
                   output=path)
    return path


# Packages for the GPU machine, which has no compiler: where the compiler is
# built, compiled() also saves each package with its matrix under
# $SPPERM_PY_PACKAGES; where it is not, it loads them from there
# (tools/scripts/gpu_python.sh carries them).
PACKAGES = os.environ.get("SPPERM_PY_PACKAGES")


def have_compiler():
    try:
        import spperm._compiler  # noqa: F401
    except ImportError:
        return False
    return True


def pruned_linear_weight(sparsity, seed=0):
    """The weight of torch.nn.Linear(192, 96) made after manual_seed(seed),
    its smallest entries (by magnitude) zeroed to `sparsity`."""
    torch = pytest.importorskip("torch")
    torch.manual_seed(seed)
    w = torch.nn.Linear(192, 96).weight.detach().clone()
    threshold = w.abs().flatten().kthvalue(round(sparsity * w.numel())).values
    w[w.abs() <= threshold] = 0
    return w.numpy()


#: The matrices of the GPU tests and their compile options, by name.
GPU_PACKAGES = {
    "gpu_torch": (lambda: random_csr(3000, 2000, 0.01, seed=11, skew=True),
                  {}),
    "gpu_errors": (lambda: random_csr(100, 80, 0.05, seed=12), {}),
    "gpu_cupy": (lambda: random_csr(500, 400, 0.02, seed=13), {}),
    "gpu_time": (lambda: random_csr(1000, 1000, 0.01, seed=14), {}),
    "linear_cuda": (lambda: pruned_linear_weight(0.9), {"name": "weight"}),
    # Its transpose, for SparseLinear's input gradient on spperm's kernels.
    "linear_cuda_t": (lambda: pruned_linear_weight(0.9).T.copy(),
                      {"name": "weight_t"}),
    "gpu_f16": (lambda: random_csr(2000, 1500, 0.01, seed=15, skew=True),
                {"dtype": "float16"}),
    "gpu_bf16": (lambda: random_csr(2000, 1500, 0.01, seed=15, skew=True),
                 {"dtype": "bfloat16"}),
    # 700 columns: the in-place kernels stage chunks whose last 16-byte
    # copy is partly past the end of B at K = 36.
    "gpu_in_place": (lambda: random_csr(600, 700, 0.05, seed=16),
                     {"k": 36, "strategy": "lpt", "format": "csr",
                      "in_place_b": "auto", "no_library_check": True}),
    # Layers whose calls keep per-stream state: a cuSPARSE plan, ticket
    # counters.
    "gpu_cusparse": (lambda: random_csr(1500, 1200, 0.01, seed=17),
                     {"format": "cusparse"}),
    "gpu_hbp": (lambda: random_csr(1500, 1200, 0.01, seed=18, skew=True),
                {"format": "hbp"}),
    # A checked layer (the selector's choice, whose row-major decision times
    # cuSPARSE too: csr/hybrid-1 with 3 in-place kernels, and two
    # alternatives) for the tuning cache's in-place choice.
    "gpu_in_place_checked": (lambda: random_csr(600, 700, 0.05, seed=19),
                             {"k": 32, "in_place_b": "auto"}),
    # The same for any K: one in-place kernel per range of K, K read at run
    # time.
    "gpu_in_place_any": (lambda: random_csr(600, 700, 0.05, seed=16),
                         {"strategy": "lpt", "format": "csr",
                          "in_place_b": "auto", "no_library_check": True}),
}


def save_gpu_packages(directory):
    """Compiles every GPU test's package into `directory` with its matrix
    (tools/scripts/gpu_python.sh carries them to the GPU machine)."""
    import scipy.sparse as sp

    os.makedirs(directory, exist_ok=True)
    for name, (make, options) in GPU_PACKAGES.items():
        a = sp.csr_matrix(make())
        spperm.compile(a, **options).save(os.path.join(directory,
                                                       name + ".spp"))
        sp.save_npz(os.path.join(directory, name + ".npz"), a)


def compiled(name):
    """(package, matrix) of GPU_PACKAGES[name]: compiled here where the
    compiler is built, else the one save_gpu_packages saved under
    $SPPERM_PY_PACKAGES."""
    sp = pytest.importorskip("scipy.sparse")
    make, options = GPU_PACKAGES[name]
    if have_compiler():
        a = sp.csr_matrix(make())
        return spperm.compile(a, **options), a
    path = os.path.join(PACKAGES or "", name + ".spp")
    if not PACKAGES or not os.path.isdir(path):
        pytest.skip(f"no compiler in this build and no package {name}.spp in "
                    "$SPPERM_PY_PACKAGES")
    return spperm.load(path), sp.load_npz(os.path.join(PACKAGES, name + ".npz"))


def pytest_collection_modifyitems(config, items):
    """Where the compiler is not built (the runtime-only build of the GPU
    machine), only the GPU tests run (on saved packages); the others compile
    and are skipped."""
    if have_compiler():
        return
    skip = pytest.mark.skip(reason="needs the compiler (spperm._compiler); "
                                   "this is the runtime-only build")
    for item in items:
        if not item.name.startswith(("test_gpu", "test_cuda")):
            item.add_marker(skip)
