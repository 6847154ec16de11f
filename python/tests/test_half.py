"""16-bit B and C (packages compiled with dtype=): float16 and bfloat16
operands on the CPU executor and the GPU against the float64 product of the
rounded inputs, the dtype errors, and SparseLinear in bfloat16."""

import numpy as np
import pytest

import spperm
from conftest import compiled, random_csr

torch = pytest.importorskip("torch")

#: The unit roundoff of each type: C is rounded once.
UNIT = {torch.float16: 2.0 ** -11, torch.bfloat16: 2.0 ** -8}


def rounded_reference(a, b, dtype, values):
    """A · B in float64 of the rounded inputs: B as given (already of the
    type), A's values rounded to it when the layer's values are."""
    w = torch.from_numpy(a.toarray())
    if values:
        w = w.to(dtype)
    return w.double() @ b.double().cpu()


def check(c, ref, dtype):
    assert c.dtype == dtype
    err = ((c.double().cpu() - ref).norm() / ref.norm()).item()
    assert err <= UNIT[dtype]
    # Every element: the rounding of an fp32 sum of the exact products.
    tol = UNIT[dtype] * ref.abs() + 1e-5 * ref.abs().max()
    assert bool(((c.double().cpu() - ref).abs() <= tol).all())


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("values", [True, False])
def test_cpu_against_rounded_reference(dtype, values):
    a = random_csr(300, 200, 0.05, seed=3, skew=True)
    pkg = spperm.compile(a, dtype=dtype,
                         values_dtype=None if values else "float32")
    layer = pkg[0]
    assert layer.dtype == str(dtype).replace("torch.", "")
    assert "dtype=" in repr(layer)
    for k in (1, 8, 12, 33):
        b = torch.randn(200, k).to(dtype)
        check(pkg(b), rounded_reference(a, b, dtype, values), dtype)


def test_numpy_float16_and_errors():
    a = random_csr(60, 40, 0.1, seed=4)
    pkg = spperm.compile(a, dtype="f16")
    b = np.random.default_rng(0).standard_normal((40, 8)).astype(np.float16)
    c = pkg(b)
    assert c.dtype == np.float16 and c.shape == (60, 8)
    with pytest.raises(spperm.InvalidArgumentError,
                       match=r"B must be float16, got float32 \(the layer "
                             r"was compiled with --dtype f16\)"):
        pkg(b.astype(np.float32))
    with pytest.raises(spperm.InvalidArgumentError,
                       match="out must be float16, got float32"):
        pkg(b, out=np.empty((60, 8), dtype=np.float32))
    bf = spperm.compile(a, dtype="bfloat16")
    with pytest.raises(spperm.InvalidArgumentError, match="no bfloat16"):
        bf(b.astype(np.float32))
    with pytest.raises(spperm.InvalidArgumentError,
                       match="dtype must be float32, float16 or bfloat16"):
        spperm.compile(a, dtype="float64")
    with pytest.raises(spperm.CompileError,
                       match="--values-dtype must be f32 or the --dtype"):
        spperm.compile(a, dtype="bfloat16", values_dtype="float16")
    # NumPy's scalar types name dtypes too.
    assert spperm.compile(a, dtype=np.float16)[0].dtype == "float16"


def test_values_that_overflow_the_type_are_refused():
    """A finite value that would round to Inf in the 16-bit values type is
    refused at compile time, naming it, as a file's Inf value is."""
    import scipy.sparse as sp

    a = sp.csr_matrix(np.array([[1e5, 1.0], [0.0, 2.0]], dtype=np.float32))
    with pytest.raises(spperm.CompileError,
                       match=r"the value 100000 \(row 1, column 1\) "
                             r"overflows f16 \(largest finite value 65504\)"):
        spperm.compile(a, dtype="float16")
    # bfloat16 has float32's range; float32 values stay float32.
    assert spperm.compile(a, dtype="bfloat16")[0].dtype == "bfloat16"
    assert spperm.compile(a, dtype="float16",
                          values_dtype="float32")[0].dtype == "float16"


def test_sparse_linear_bfloat16():
    from spperm.torch import SparseLinear

    torch.manual_seed(0)
    lin = torch.nn.Linear(96, 64).to(torch.bfloat16)
    w = lin.weight.detach().clone()
    w[w.abs() < 0.05] = 0
    lin.weight.data = w
    m = SparseLinear.from_linear(lin)
    assert m.layer.dtype == "bfloat16" and m.bias.dtype == torch.bfloat16
    x = torch.randn(7, 96).to(torch.bfloat16)
    ref = torch.nn.functional.linear(x.double(), w.double(),
                                     lin.bias.double())
    y = m(x)
    assert y.dtype == torch.bfloat16
    # The product rounded once, then the bias added in bfloat16.
    assert ((y.double() - ref).norm() / ref.norm()).item() < 2 * UNIT[
        torch.bfloat16]
    with pytest.raises(spperm.InvalidArgumentError, match="x must be bfloat16"):
        m(x.float())
    # The input's gradient in bfloat16, both ways, rounded once.
    seed = torch.randn(7, 64).to(torch.bfloat16)
    ref = seed.double() @ w.double()
    for backward in ("torch", "spperm"):
        m = SparseLinear.from_linear(lin, backward=backward)
        xg = x.clone().requires_grad_()
        (m(xg) * seed).sum().backward()
        assert xg.grad.dtype == torch.bfloat16
        assert ((xg.grad.double() - ref).norm() / ref.norm()).item() < UNIT[
            torch.bfloat16]


def test_sparse_linear_gradient_uses_the_rounded_weight():
    # A float32 layer compiled for float16: the package holds W rounded to
    # float16, and the torch route's Wᵀ is that W, not the float32 one.
    from spperm.torch import SparseLinear

    torch.manual_seed(1)
    lin = torch.nn.Linear(48, 40)
    with torch.no_grad():
        lin.weight.mul_(torch.rand_like(lin.weight) < 0.3)
    for options, rounded in (({"dtype": "float16"}, torch.float16),
                             ({"dtype": "float16", "values_dtype": "float32"},
                              torch.float32)):
        m = SparseLinear.from_linear(lin, **options)
        values = m._gradient.weight_t.values()
        assert torch.equal(values, values.to(rounded).float())
        expected = lin.weight.detach().t().to(rounded).float()
        assert torch.equal(m._gradient.weight_t.to_dense(), expected)
        assert m.layer.values_dtype == str(rounded).replace("torch.", "")
        # from_package(weight=) rounds W as the package holds it.
        p = SparseLinear.from_package(m.package, weight=lin.weight)
        assert torch.equal(p._gradient.weight_t.to_dense(), expected)
    # values_dtype=None is the default: the dtype.
    m = SparseLinear.from_linear(lin, dtype="float16", values_dtype=None)
    assert torch.equal(m._gradient.weight_t.to_dense(),
                       lin.weight.detach().t().half().float())


@pytest.mark.parametrize("name,dtype", [("gpu_f16", torch.float16),
                                        ("gpu_bf16", torch.bfloat16)])
def test_cuda_against_rounded_reference(torch_cuda, name, dtype):
    pkg, a = compiled(name)
    for k in (1, 8, 12, 32, 128, 512):
        b = torch.randn(a.shape[1], k, device="cuda").to(dtype)
        c = pkg(b)
        torch.cuda.synchronize()
        assert c.is_cuda
        check(c, rounded_reference(a, b, dtype, True), dtype)
        # Column-major B (x.t()): the same C, through the transposing
        # kernel.
        col = pkg(b.t().contiguous().t())
        torch.cuda.synchronize()
        check(col, rounded_reference(a, b, dtype, True), dtype)
    # A misaligned B (one element in) is refused before anything runs.
    wide = torch.empty(a.shape[1] * 8 + 1, device="cuda", dtype=dtype)
    with pytest.raises(spperm.InvalidArgumentError, match="aligned"):
        pkg[0]._slow(wide[1:].view(a.shape[1], 8))
