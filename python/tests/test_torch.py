"""spperm.torch.SparseLinear against torch.nn.functional.linear, on the CPU
(the CPU executor) and on CUDA; under no_grad, torch.compile and CUDA
graphs; its gradients against torch's of the dense product."""

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


def test_float64_layers_need_a_dtype():
    lin = torch.nn.Linear(8, 4).double()
    with pytest.raises(spperm.UnsupportedError, match="torch.float64"):
        SparseLinear.from_linear(lin)
    # Named, the weight is compiled in that type (and the bias kept as is).
    m = SparseLinear.from_linear(lin, dtype="float32")
    assert m.layer.dtype == "float32"
    x = torch.randn(3, 8)
    ref = torch.nn.functional.linear(x.double(), lin.weight.detach(),
                                     lin.bias.detach())
    assert float((m(x).double() - ref).norm() / ref.norm()) < 1e-5


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


def test_torch_compile_without_input_features():
    # The graph's shapes are the eager call's (the fake op's result).
    none = SparseLinear.from_linear(torch.nn.Linear(0, 4))
    try:
        y = torch.compile(none, fullgraph=True)(torch.randn(3, 0))
        assert torch.equal(y, none(torch.randn(3, 0)))
    finally:
        # A third compile of SparseLinear.forward makes dynamo compile the
        # next ones with dynamic shapes; the other tests expect static.
        torch._dynamo.reset()


def test_errors(linear):
    m = SparseLinear.from_dense(linear, sparsity=0.5)
    with pytest.raises(spperm.InvalidArgumentError, match="192"):
        m(torch.randn(3, 100))
    with pytest.raises(spperm.InvalidArgumentError, match="float32"):
        m(torch.randn(3, 192, dtype=torch.float64))
    with pytest.raises(spperm.InvalidArgumentError, match="sparsity"):
        SparseLinear.from_dense(linear, sparsity=1.0)
    # A sparsity that is not a number, and a module that is not a Linear,
    # are named as such (not a TypeError from inside, nor "3 dimensions").
    with pytest.raises(spperm.InvalidArgumentError,
                       match=r"sparsity must be a number in \[0, 1\), got '0.5'"):
        SparseLinear.from_dense(linear, sparsity="0.5")
    with pytest.raises(spperm.InvalidArgumentError,
                       match="take a torch.nn.Linear .* got Conv1d"):
        SparseLinear.from_linear(torch.nn.Conv1d(3, 3, 1))
    with pytest.raises(spperm.InvalidArgumentError, match="bias"):
        SparseLinear.from_package(m.package, bias=torch.zeros(3))


def check_gradients(module, w, x, bias_grad):
    """Backward through `module` (weight w) against torch's dense product
    in float64: dX, and the bias's gradient where it requires one."""
    x = x.detach().requires_grad_()
    y = module(x)
    assert y.requires_grad
    seed = torch.randn(y.shape, device=y.device, dtype=y.dtype)
    (y * seed).sum().backward()
    xr = x.detach().double().cpu().requires_grad_()
    br = None
    if module.bias is not None:
        br = module.bias.detach().double().cpu().requires_grad_(bias_grad)
    yr = torch.nn.functional.linear(xr, w.double().cpu(), br)
    (yr * seed.double().cpu()).sum().backward()
    assert x.grad.shape == x.shape and x.grad.dtype == x.dtype
    assert x.grad.device == x.device
    err = (x.grad.cpu().double() - xr.grad).norm() / xr.grad.norm()
    assert err < 1e-5
    if bias_grad:
        err = (module.bias.grad.cpu().double() - br.grad).norm() / \
            br.grad.norm()
        assert err < 1e-5
        module.bias.grad = None
    else:
        assert module.bias is None or module.bias.grad is None


@pytest.mark.parametrize("backward", ["torch", "spperm"])
def test_input_gradient(linear, backward):
    m = SparseLinear.from_dense(linear, sparsity=0.8, backward=backward)
    assert (m.transpose_package is not None) == (backward == "spperm")
    w = pruned(linear, 0.8)
    for shape in ((5, 192), (2, 3, 192)):
        check_gradients(m, w, torch.randn(*shape), bias_grad=False)
    # The bias trains when asked to; the weight never does.
    m.bias.requires_grad_(True)
    check_gradients(m, w, torch.randn(7, 192), bias_grad=True)
    assert [name for name, p in m.named_parameters() if p.requires_grad] == \
        ["bias"]
    # Under no_grad (and for inputs that need none) nothing is tracked.
    with torch.no_grad():
        assert not m(torch.randn(3, 192, requires_grad=True)).requires_grad
    m.bias.requires_grad_(False)
    assert not m(torch.randn(3, 192)).requires_grad


@pytest.mark.parametrize("backward", ["torch", "spperm"])
def test_second_order_gradient(linear, backward):
    # A gradient penalty: the input's gradient is itself differentiated.
    m = SparseLinear.from_dense(linear, sparsity=0.8, backward=backward)
    w = pruned(linear, 0.8).double()
    x = torch.randn(4, 192, requires_grad=True)
    g, = torch.autograd.grad(m(x).square().sum(), x, create_graph=True)
    (g.square().sum() + x.square().sum()).backward()
    xr = x.detach().double().requires_grad_()
    yr = torch.nn.functional.linear(xr, w, m.bias.detach().double())
    gr, = torch.autograd.grad(yr.square().sum(), xr, create_graph=True)
    (gr.square().sum() + xr.square().sum()).backward()
    assert float((x.grad.double() - xr.grad).norm() / xr.grad.norm()) < 1e-5


def test_sparse_weights_and_parameters(linear):
    # A torch sparse weight compiles both ways; a layer's product on an
    # nn.Parameter B that requires a gradient is marked as having none.
    w = pruned(linear, 0.7)
    for weight in (w.to_sparse_coo(), w.to_sparse_csr()):
        sparse = torch.nn.Linear(192, 96)
        sparse.weight = torch.nn.Parameter(weight, requires_grad=False)
        m = SparseLinear.from_linear(sparse, backward="spperm")
        check_gradients(m, w, torch.randn(3, 192), bias_grad=False)
        # Pruned further (and with torch's backward, which densifies W).
        pruned_more = SparseLinear.from_dense(sparse, 0.8)
        assert pruned_more.layer.nnz == round(0.2 * w.numel())
    b = torch.nn.Parameter(torch.randn(192, 2))
    c = m.package(b)
    with pytest.raises(spperm.UnsupportedError, match="no gradient"):
        c.sum().backward()


def test_gradient_through_a_chain():
    torch.manual_seed(4)
    first, second = torch.nn.Linear(64, 96), torch.nn.Linear(96, 32)
    m1 = SparseLinear.from_dense(first, sparsity=0.7)
    m2 = SparseLinear.from_dense(second, sparsity=0.7, backward="spperm")
    x = torch.randn(2, 5, 64, requires_grad=True)
    m2(torch.nn.functional.gelu(m1(x))).square().sum().backward()
    xr = x.detach().double().requires_grad_()
    torch.nn.functional.linear(
        torch.nn.functional.gelu(torch.nn.functional.linear(
            xr, pruned(first, 0.7).double(), first.bias.double())),
        pruned(second, 0.7).double(), second.bias.double()
    ).square().sum().backward()
    assert float((x.grad.double() - xr.grad).norm() / xr.grad.norm()) < 1e-5


def test_torch_compile_gradient(linear):
    m = SparseLinear.from_dense(linear, sparsity=0.9)
    m.bias.requires_grad_(True)
    compiled = torch.compile(m, backend="aot_eager")
    x = torch.randn(6, 192, requires_grad=True)
    compiled(x).square().sum().backward()
    grads = x.grad.clone(), m.bias.grad.clone()
    x.grad = m.bias.grad = None
    m(x).square().sum().backward()
    assert torch.equal(grads[0], x.grad) and torch.equal(grads[1], m.bias.grad)


def test_no_gradient_is_an_error_not_a_silence(linear):
    x = torch.randn(4, 192, requires_grad=True)
    m = SparseLinear.from_dense(linear, sparsity=0.5, backward="none")
    y = m(x)
    assert y.requires_grad  # forward runs; the backward says why it cannot
    with pytest.raises(spperm.UnsupportedError, match="backward='none'"):
        y.sum().backward()
    with pytest.raises(spperm.InvalidArgumentError,
                       match=r"backward must be .*, got 'dense'$"):
        SparseLinear.from_dense(linear, sparsity=0.5, backward="dense")
    with pytest.raises(spperm.InvalidArgumentError,
                       match=r"got 'Torch'; did you mean 'torch'\?$"):
        SparseLinear.from_dense(linear, sparsity=0.5, backward="Torch")
    with pytest.raises(spperm.InvalidArgumentError,
                       match="got 'x\\\\udc80'$"):
        SparseLinear.from_dense(linear, sparsity=0.5, backward="x\udc80")
    # A module over a package: the layer of Wᵀ gives the gradient.
    w = pruned(linear, 0.5)
    pkg = spperm.compile(w, format="csr", name="fc")
    m = SparseLinear.from_package(pkg, "fc")
    with pytest.raises(spperm.UnsupportedError, match="transpose="):
        m(x).sum().backward()
    pkg_t = spperm.compile(w.t().contiguous(), format="csr", name="fc_t")
    check_gradients(SparseLinear.from_package(pkg, "fc", transpose=pkg_t),
                    w, x, bias_grad=False)
    with pytest.raises(spperm.InvalidArgumentError, match="192 x 96"):
        SparseLinear.from_package(pkg, "fc", transpose=pkg)
    # ... or the weight it was compiled from, dense or sparse.
    for weight in (w, w.to_sparse_csr()):
        check_gradients(SparseLinear.from_package(pkg, "fc", weight=weight),
                        w, x, bias_grad=False)
    with pytest.raises(spperm.InvalidArgumentError, match="96 x 192"):
        SparseLinear.from_package(pkg, "fc", weight=w.t())
    # A weight with entries the layer lacks is another weight.
    for other in (pruned(linear, 0.3), pruned(linear, 0.3).to_sparse_coo()):
        with pytest.raises(spperm.InvalidArgumentError,
                           match="not the weight the package was compiled"):
            SparseLinear.from_package(pkg, "fc", weight=other)
    # A stored zero is an entry of the layer, not of a dense W: both forms
    # of the weight give its gradient.
    zero = torch.sparse_coo_tensor([[0, 1, 2], [0, 1, 2]], [1.0, 0.0, 3.0],
                                   (3, 3))
    pz = spperm.compile(zero, name="z")
    assert pz[0].nnz == 3
    for given in (zero, zero.to_dense()):
        check_gradients(SparseLinear.from_package(pz, weight=given),
                        zero.to_dense(), torch.randn(2, 3), bias_grad=False)
    with pytest.raises(spperm.InvalidArgumentError, match="not both"):
        SparseLinear.from_package(pkg, "fc", weight=w, transpose=pkg_t)
    # A package's own product has no gradient with respect to B.
    b = torch.randn(192, 3, requires_grad=True)
    c = pkg(b)
    with pytest.raises(spperm.UnsupportedError, match="no gradient"):
        c.sum().backward()
    with pytest.raises(spperm.UnsupportedError, match="out="):
        pkg(b, out=torch.empty(96, 3))
    with torch.no_grad():
        assert not pkg(b).requires_grad
    assert torch.equal(pkg(b.detach()), c.detach())


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


def test_cuda_as_models_call_it(torch_cuda, linear):
    """What a served model does: batch sizes between the K buckets and above
    them, an empty batch, inputs that are views (a column slice, a stride-0
    broadcast, a transposed tensor), under inference_mode and in a
    torch.compile graph with dynamic shapes."""
    m, w = cuda_module(linear)
    with torch.inference_mode():
        for n in (1, 7, 33, 100, 300, 700, 2100):
            check(m, w, linear.bias, torch.randn(n, 192, device="cuda"))
        wide = torch.randn(40, 384, device="cuda")
        check(m, w, linear.bias, wide[:, ::2])
        check(m, w, linear.bias,
              torch.randn(1, 192, device="cuda").expand(50, 192))
        check(m, w, linear.bias, torch.randn(192, 60, device="cuda").t())
        y = m(torch.randn(0, 192, device="cuda"))
        assert y.shape == (0, 96) and y.is_cuda
        assert m(torch.randn(3, 0, 192, device="cuda")).shape == (3, 0, 96)
    compiled_m = torch.compile(m, dynamic=True)
    with torch.no_grad():
        for n in (5, 64, 129, 513):
            x = torch.randn(n, 192, device="cuda")
            y = compiled_m(x)
            ref = torch.nn.functional.linear(x.double(), w.double().cuda(),
                                             linear.bias.double().cuda())
            assert (y.double() - ref).norm() / ref.norm() < 1e-5


def test_cuda_threads_on_their_own_streams(torch_cuda, linear):
    """Threads calling one module, each on a torch stream of its own, with
    batch sizes that take different variants and the transposing path (a
    row-major x): every result right."""
    import threading
    m, w = cuda_module(linear)
    ref_w = w.double().cuda()
    ref_b = linear.bias.double().cuda()
    sizes = (8, 32, 100, 512)
    with torch.no_grad():  # the first call for each K decides outside
        for n in sizes:
            m(torch.randn(n, 192, device="cuda"))
    torch.cuda.synchronize()
    errors, wrong = [], []

    def work(seed):
        try:
            g = torch.Generator(device="cuda").manual_seed(seed)
            stream = torch.cuda.Stream()
            with torch.cuda.stream(stream), torch.no_grad():
                for i in range(24):
                    n = sizes[(seed + i) % len(sizes)]
                    x = torch.randn(n, 192, device="cuda", generator=g)
                    y = m(x)
                    ref = torch.nn.functional.linear(x.double(), ref_w, ref_b)
                    err = ((y.double() - ref).norm() / ref.norm()).item()
                    if not err < 1e-5:
                        wrong.append((seed, i, n, err))
        except Exception as e:  # reported by the main thread
            errors.append(repr(e))

    threads = [threading.Thread(target=work, args=(s,)) for s in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and not wrong, (errors, wrong[:5])


def test_cuda_gradient(torch_cuda, linear):
    pkg, a = compiled("linear_cuda")
    pkg_t, _ = compiled("linear_cuda_t")
    w = torch.from_numpy(a.toarray())
    # spperm's kernels on the package of Wᵀ, and (from a dense weight)
    # torch's sparse product on CUDA.
    for how in ({"transpose": pkg_t}, {"weight": w}):
        m = SparseLinear.from_package(pkg, bias=linear.bias, **how).cuda()
        for n in (1, 32, 128, 512):
            check_gradients(m, w, torch.randn(n, 192, device="cuda"),
                            bias_grad=False)
        m.bias.requires_grad_(True)
        check_gradients(m, w, torch.randn(2, 64, 192, device="cuda"),
                        bias_grad=True)


def test_what_a_module_cannot_do_is_refused(linear):
    m = SparseLinear.from_dense(linear, sparsity=0.6)
    x = torch.randn(3, 192)
    # Tracing would record no product (and replay garbage): refused.
    with pytest.raises(spperm.UnsupportedError, match="torch.jit.trace"):
        torch.jit.trace(m, x, check_trace=False)
    # Its dtype is compiled in: .half() and the like would convert the bias
    # alone.
    for convert in (lambda: m.half(), lambda: m.to(torch.bfloat16),
                    lambda: torch.nn.Sequential(m).double()):
        with pytest.raises(spperm.UnsupportedError, match="compiled for"):
            convert()
    assert m.bias.dtype == torch.float32
    # Inputs torch's own errors would misname.
    for bad, match in ((torch.tensor(1.0), "scalar"),
                       (x.to_sparse(), "strided"),
                       (x.numpy(), "torch tensor"),
                       (torch.randn(3, 192, device="meta"), "CPU or a CUDA"),
                       (torch.randn(3, 192, device="meta", dtype=torch.float64),
                        "CPU or a CUDA")):
        with pytest.raises(spperm.InvalidArgumentError, match=match):
            m(bad)
    # A negated view (torch's neg bit) is read as its values.
    ref = torch.nn.functional.linear(-x, pruned(linear, 0.6), linear.bias)
    assert torch.allclose(m(torch._neg_view(x)), ref, atol=1e-5)
    # K compiled in: the message says K is the batch.
    mk = SparseLinear.from_dense(linear, sparsity=0.6, k=4)
    with pytest.raises(spperm.InvalidArgumentError, match="rows of x"):
        mk(x)


def test_handles_and_copies(linear, tmp_path):
    import copy
    import pickle
    m = SparseLinear.from_dense(linear, sparsity=0.6)
    # Its layer holds device memory and a runtime: no pickle, no deep copy,
    # of the module or of a model holding it (docs/Python.md, "Errors").
    for copier in (copy.deepcopy, pickle.dumps,
                   lambda x: torch.save(x, tmp_path / "m.pt"),
                   lambda x: torch.save(torch.nn.Sequential(x),
                                        tmp_path / "s.pt")):
        with pytest.raises(spperm.UnsupportedError,
                           match="SparseLinear.from_package"):
            copier(m)
    c = copy.copy(m)
    assert c._handle != m._handle and c.layer is m.layer
    x = torch.randn(3, 192)
    del m
    assert torch.equal(torch.compile(c, backend="aot_eager")(x), c(x))
    # A handle of no module here (a graph from another process) is named.
    with pytest.raises(spperm.InvalidArgumentError, match="in this process"):
        torch.ops.spperm.linear(x, None, 2, 96)


def test_weight_is_checked_against_the_layer(linear):
    w = pruned(linear, 0.5)
    pkg = spperm.compile(w, name="fc")
    for wrong in (torch.zeros_like(w), 2 * w):
        with pytest.raises(spperm.InvalidArgumentError,
                           match="not the matrix of layer"):
            SparseLinear.from_package(pkg, weight=wrong)
    # NumPy and SciPy weights are taken as compile takes them.
    sp = pytest.importorskip("scipy.sparse")
    x = torch.randn(2, 192)
    for given in (w.numpy(), sp.csr_matrix(w.numpy())):
        check_gradients(SparseLinear.from_package(pkg, weight=given), w, x,
                        bias_grad=False)


def test_autocast(linear):
    # Under autocast the input comes in the layer's dtype.
    torch.manual_seed(2)
    first = torch.nn.Linear(16, 192)
    m = SparseLinear.from_dense(linear, sparsity=0.6)
    model = torch.nn.Sequential(first, m)
    x = torch.randn(4, 16)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        h = first(x)
        y = model(x)
    assert h.dtype == torch.bfloat16 and y.dtype == torch.float32
    with torch.no_grad():
        assert torch.equal(y, m(h.float()))
