"""A package's lifetime (freed when its last reference goes; a later load
finds the package its layers describe) and the operands torch hands over
as views (the neg bit, out= under autograd, dual tensors), on the CPU
executor (docs/Python.md)."""

import gc
import os
import weakref

import numpy as np
import pytest

import spperm
from conftest import have_compiler, normwise_error, random_csr, reference

pytestmark = pytest.mark.skipif(not have_compiler(),
                                reason="needs the compiler half")


def test_dropping_the_package_frees_it_at_once():
    a = random_csr(12, 12, 0.3, 1)
    pkg = spperm.compile(a, device="cpu")
    path = pkg.path
    alive = weakref.ref(pkg)
    gc.disable()
    try:
        del pkg  # no reference cycle: freed without the cycle collector
        assert alive() is None
        assert not os.path.exists(path)
    finally:
        gc.enable()


def test_a_layer_keeps_its_package_directory():
    a = random_csr(12, 10, 0.3, 2)
    layer = spperm.compile(a)[0]  # the Package object is gone at once
    b = np.random.default_rng(2).standard_normal((10, 3)).astype(np.float32)
    assert normwise_error(layer(b), reference(a, b)) <= 1e-5
    assert layer._package[0].name == layer.name


def test_a_later_load_finds_the_package_the_layers_describe(tmp_path,
                                                            monkeypatch):
    small = random_csr(12, 12, 0.3, 3)
    big = random_csr(3000, 12, 0.5, 4)
    for sub, m in (("d1", small), ("d2", big)):
        (tmp_path / sub).mkdir()
        spperm.compile(m, output=tmp_path / sub / "m.spp")
    monkeypatch.chdir(tmp_path / "d1")
    pkg = spperm.load("m.spp")  # describes d1's package, loads nothing
    assert pkg.path == str(tmp_path / "d1" / "m.spp")
    monkeypatch.chdir(tmp_path / "d2")
    b = np.ones((12, 3), np.float32)
    assert normwise_error(pkg(b), reference(small, b)) <= 1e-5  # d1's
    # Replaced under the package: refused, never sized from stale shapes.
    pkg.close()
    spperm.compile(big, output=tmp_path / "d1" / "m.spp")
    with pytest.raises(spperm.CorruptPackageError, match="changed since"):
        pkg(b)


def test_negated_views_are_read_as_their_values():
    torch = pytest.importorskip("torch")
    a = random_csr(16, 12, 0.3, 5)
    pkg = spperm.compile(a)
    b = torch.randn(12, 5)
    want = -reference(a, b.numpy())
    neg = torch._neg_view(b)
    assert neg.is_neg()
    for got in (pkg(neg), pkg(neg, out=torch.empty(16, 5)),
                pkg(neg, stream=0)):
        assert normwise_error(got.numpy(), want) <= 1e-5
    with pytest.raises(spperm.InvalidArgumentError, match="negated"):
        pkg(b, out=torch._neg_view(torch.zeros(16, 5)))
    # compile and inspect read a negated matrix as its values.
    dense = torch.from_numpy(a.toarray())
    negated = spperm.compile(torch._neg_view(dense))
    assert normwise_error(negated(b).numpy(), want) <= 1e-5
    assert spperm.inspect(torch._neg_view(dense))["nnz"] == a.nnz


def test_out_follows_torchs_in_place_rules():
    torch = pytest.importorskip("torch")
    a = random_csr(12, 12, 0.3, 6)
    pkg = spperm.compile(a)
    b = torch.randn(12, 4)
    out = torch.zeros(12, 4)
    w = torch.ones(12, 4, requires_grad=True)
    y = (out * w).sum()  # saves out for the backward
    pkg(b, out=out)  # writes it: its version moves, as torch.mm(out=) does
    with pytest.raises(RuntimeError, match="modified by an inplace"):
        y.backward()
    leaf = torch.empty(12, 4, requires_grad=True)
    with pytest.raises(spperm.UnsupportedError, match="requires a gradient"):
        pkg(b, out=leaf)
    with torch.no_grad():
        pkg(b, out=leaf)
    assert normwise_error(leaf.detach().numpy(),
                          reference(a, b.numpy())) <= 1e-5


def test_dual_tensors():
    torch = pytest.importorskip("torch")
    fwad = pytest.importorskip("torch.autograd.forward_ad")
    from spperm.torch import SparseLinear

    torch.manual_seed(0)
    linear = torch.nn.Linear(12, 16)
    module = SparseLinear.from_dense(linear, 0.5)
    x, t = torch.randn(4, 12), torch.randn(4, 12)
    with fwad.dual_level():
        y = module(fwad.make_dual(x, t))
        primal, tangent = fwad.unpack_dual(y)
        assert tangent is not None
        # d(x Wᵀ + b) = t Wᵀ: the module's product of the tangent without
        # the bias.
        want = module(t) - module.bias
        assert torch.allclose(tangent, want, atol=1e-5)
        assert torch.allclose(primal, module(x), atol=1e-6)
        pkg = spperm.compile(np.ones((3, 12), np.float32))
        with pytest.raises(spperm.UnsupportedError, match="forward-mode"):
            pkg(fwad.make_dual(torch.randn(12, 2), torch.randn(12, 2)))


def test_a_layer_without_rows_on_torchs_fast_path():
    torch = pytest.importorskip("torch")
    sp = pytest.importorskip("scipy.sparse")
    empty = spperm.compile(sp.csr_matrix((0, 6), dtype=np.float32), k=8)
    for b in (torch.randn(6, 4), torch.randn(4, 6).t()):
        assert empty(b).shape == (0, 4)
    with pytest.raises(spperm.InvalidArgumentError):
        # K = 0 with an out of another dtype is still checked.
        spperm.compile(random_csr(12, 12, 0.3, 7))(
            torch.randn(12, 0), out=torch.empty(12, 0, dtype=torch.float64))


def test_failures_are_spperm_errors():
    a = random_csr(12, 12, 0.3, 8)
    pkg = spperm.compile(a)
    field = np.zeros((12, 4), dtype=[("a", "<f4"), ("b", "i1")])["a"]
    with pytest.raises(spperm.InvalidArgumentError):
        pkg(field)
    with pytest.raises(spperm.InvalidArgumentError, match="UTF-8"):
        spperm.compile(a, name="a\udc80b")
    with pytest.raises(spperm.InvalidArgumentError, match="NUL"):
        pkg[0].time(np.ones((12, 2), np.float32), variant="spperm:0\0x")
