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
