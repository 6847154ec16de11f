"""spperm.torch.SparseLinear against torch.nn.functional.linear, on the CPU
(the CPU executor) and on CUDA; under no_grad, torch.compile and CUDA
graphs."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import spperm  # noqa: E402
from spperm.torch import SparseLinear  # noqa: E402
from conftest import compiled  # noqa: E402


def pruned(linear, sparsity):
    w = linear.weight.detach().clone()
    drop = int(round(sparsity * w.numel()))
    threshold = w.abs().flatten().kthvalue(drop).values
    w[w.abs() <= threshold] = 0
    return w


def check(module, w, bias, x):
    ref = torch.nn.functional.linear(
        x.double().cpu(), w.double().cpu(),
        None if bias is None else bias.double().cpu())
    y = module(x)
    assert y.shape == ref.shape and y.dtype == torch.float32
    assert y.device == x.device
    # Y is the transposed view of C (Y.t() contiguous) for 2-D X.
    if x.dim() == 2:
        assert y.t().is_contiguous()
    err = (y.cpu().double() - ref).norm() / ref.norm()
    assert err < 1e-5


@pytest.fixture
def linear():
    torch.manual_seed(0)
    return torch.nn.Linear(192, 96)


def test_from_dense_prunes_by_magnitude(linear):
    m = SparseLinear.from_dense(linear, sparsity=0.8)
    assert (m.in_features, m.out_features) == (192, 96)
    assert m.layer.nnz == 192 * 96 - round(0.8 * 192 * 96)
    w = pruned(linear, 0.8)
    for shape in ((5, 192), (2, 3, 192), (192,)):
        check(m, w, linear.bias, torch.randn(*shape))


def test_from_linear_keeps_the_zeros(linear):
    with torch.no_grad():
        linear.weight.mul_(torch.rand_like(linear.weight) < 0.1)
        linear.bias = None
    m = SparseLinear.from_linear(linear, strategy="lpt", format="csr")
    assert m.bias is None
    assert m.layer.nnz == int((linear.weight != 0).sum())
    with torch.no_grad():
        check(m, linear.weight.detach(), None, torch.randn(7, 192))


def test_chain_reads_the_transposed_output():
    torch.manual_seed(3)
    first, second = torch.nn.Linear(64, 96), torch.nn.Linear(96, 32)
    m1 = SparseLinear.from_dense(first, sparsity=0.7)
    m2 = SparseLinear.from_dense(second, sparsity=0.7)
    x = torch.randn(2, 5, 64)
    with torch.no_grad():
        h = torch.nn.functional.gelu(m1(x))
        y = m2(h)
        ref = torch.nn.functional.linear(
            torch.nn.functional.gelu(torch.nn.functional.linear(
                x.double(), pruned(first, 0.7).double(),
                first.bias.double())),
            pruned(second, 0.7).double(), second.bias.double())
    assert h.reshape(-1, 96).t().is_contiguous()  # no copy needed by m2
    assert float((y.double() - ref).norm() / ref.norm()) < 1e-5


def test_from_package(linear):
    pkg = spperm.compile(pruned(linear, 0.5), format="csr", name="fc")
    m = SparseLinear.from_package(pkg, "fc", bias=linear.bias)
    check(m, pruned(linear, 0.5), linear.bias, torch.randn(4, 192))


def test_torch_compile(linear):
    m = SparseLinear.from_dense(linear, sparsity=0.9)
    compiled = torch.compile(m)
    x = torch.randn(6, 192)
    with torch.no_grad():
        assert torch.equal(compiled(x), m(x))


def test_errors(linear):
    m = SparseLinear.from_dense(linear, sparsity=0.5)
    with pytest.raises(spperm.InvalidArgumentError, match="192"):
        m(torch.randn(3, 100))
    with pytest.raises(spperm.InvalidArgumentError, match="float32"):
        m(torch.randn(3, 192, dtype=torch.float64))
    with pytest.raises(spperm.InvalidArgumentError, match="sparsity"):
        SparseLinear.from_dense(linear, sparsity=1.0)
    with pytest.raises(spperm.InvalidArgumentError, match="bias"):
        SparseLinear.from_package(m.package, bias=torch.zeros(3))


def cuda_module(linear):
    """SparseLinear of `linear` pruned to 90 % on CUDA (a saved package
    where there is no compiler), and its weight."""
    pkg, a = compiled("linear_cuda")
    w = torch.from_numpy(a.toarray())
    return SparseLinear.from_package(pkg, bias=linear.bias).cuda(), w


def test_cuda(torch_cuda, linear):
    m, w = cuda_module(linear)
    assert m.bias.is_cuda
    for n in (1, 32, 128, 512):
        check(m, w, linear.bias, torch.randn(n, 192, device="cuda"))
    with torch.no_grad():
        check(m, w, linear.bias, torch.randn(2, 64, 192, device="cuda"))


def test_cuda_graph(torch_cuda, linear):
    m, _ = cuda_module(linear)
    x = torch.randn(64, 192, device="cuda")
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side), torch.no_grad():
        m(x)  # the first call for this K bucket chooses the variant
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph), torch.no_grad():
        y = m(x)
    x.copy_(torch.randn(64, 192, device="cuda"))
    graph.replay()
    torch.cuda.synchronize()
    with torch.no_grad():
        assert torch.allclose(y, m(x), rtol=1e-5, atol=1e-5)
