"""Running packages from Python: the CPU executor on NumPy and torch CPU
arrays, the GPU on torch CUDA tensors and CuPy arrays, and the errors."""

import os
import re
import threading

import numpy as np
import pytest

import spperm
from conftest import INPUTS, compiled, normwise_error, random_csr, reference


@pytest.mark.parametrize("seed", range(6))
def test_random_matrices_against_float64(seed):
    """Property test: random shapes, densities, skew and K against SciPy's
    float64 product, on the CPU executor."""
    rng = np.random.default_rng(100 + seed)
    rows, cols = (int(x) for x in rng.integers(1, 300, size=2))
    a = random_csr(rows, cols, float(rng.uniform(0.005, 0.3)), seed=seed,
                   skew=bool(seed % 2))
    strategy = ["identity", "lpt", "bsa", "auto"][seed % 4]
    pkg = spperm.compile(a, strategy=strategy, format="auto")
    for k in (1, 3, 32):
        b = rng.standard_normal((cols, k)).astype(np.float32)
        assert normwise_error(pkg(b), reference(a, b)) < 1e-5


def test_out_and_result_kinds(small_package):
    pkg = spperm.load(small_package)
    a = spperm.read_matrix(INPUTS / "small.mtx")
    b = np.arange(a.shape[1] * 4, dtype=np.float32).reshape(a.shape[1], 4)
    out = np.full((a.shape[0], 4), np.nan, dtype=np.float32)
    assert pkg(b, out=out) is out
    assert normwise_error(out, reference(a, b)) < 1e-6
    torch = pytest.importorskip("torch")
    c = pkg(torch.from_numpy(b))
    assert isinstance(c, torch.Tensor) and c.device.type == "cpu"
    assert normwise_error(c.numpy(), reference(a, b)) < 1e-6


def test_operand_errors(small_package):
    pkg = spperm.load(small_package)
    rows, cols = pkg[0].shape
    good = np.ones((cols, 4), dtype=np.float32)
    cases = [
        (np.ones((cols + 1, 4), dtype=np.float32), "B has"),
        (np.ones((cols, 4), dtype=np.float64),
         "^B must be float32, got float64$"),
        (np.ones((cols, 4), dtype=np.int32), "^B must be float32, got int32$"),
        (np.ones((cols, 8), dtype=np.float32)[:, ::2],
         re.escape(f"B must be C-contiguous or F-contiguous (row- or "
                   f"column-major, such as x.t() of a row-major x), got "
                   f"strides (8, 2) elements for shape ({cols}, 4)")),
        (np.ones((2 * cols, 4), dtype=np.float32)[::2],
         re.escape(f"got strides (8, 1) elements for shape ({cols}, 4)")),
        (np.ones((cols, 4, 1), dtype=np.float32), "2-D"),
        ("not an array", "must be an array"),
    ]
    for b, message in cases:
        with pytest.raises(spperm.InvalidArgumentError, match=message):
            pkg(b)
    # C is the caller's out=, and the errors call it so.
    with pytest.raises(spperm.InvalidArgumentError,
                       match="^out has 5 columns but B has 4$"):
        pkg(good, out=np.empty((rows, 5), dtype=np.float32))
    with pytest.raises(spperm.InvalidArgumentError,
                       match="^out must be float32, got float64$"):
        pkg(good, out=np.empty((rows, 4), dtype=np.float64))
    with pytest.raises(spperm.InvalidArgumentError,
                       match=re.escape("out must be C-contiguous (row-major)")):
        pkg(good, out=np.empty((rows, 4), dtype=np.float32, order="F"))
    with pytest.raises(ValueError):  # InvalidArgumentError is a ValueError
        pkg(good, out=np.empty((rows + 1, 4), dtype=np.float32))
    readonly = np.empty((rows, 4), dtype=np.float32)
    readonly.setflags(write=False)
    with pytest.raises(spperm.InvalidArgumentError, match="out is read-only"):
        pkg(good, out=readonly)
    with pytest.raises(spperm.InvalidArgumentError, match="byte order"):
        pkg(good.astype(">f4"))
    with pytest.raises(spperm.InvalidArgumentError,
                       match="out must be an array"):
        pkg(good, out=[[0.0] * 4] * rows)


def test_layers_by_name_and_index(small_package):
    pkg = spperm.load(small_package)
    assert "small" in pkg and "other" not in pkg and 0 not in pkg
    assert pkg[0] in pkg and pkg["small"] is pkg[0]
    assert pkg[0] not in spperm.load(small_package)
    with pytest.raises(IndexError, match=r"the package has 1 layer\)$"):
        pkg[1]
    with pytest.raises(spperm.LayerNotFoundError,
                       match=r"no layer named 'other' \(layers: small\)$"):
        pkg["other"]


def test_runtime_messages_name_no_c_function(small_package):
    """The runtime's messages come without the C function's name that
    starts them in C (sprt_spmm_ordered: ...)."""
    pkg = spperm.load(small_package)
    rows, cols = pkg[0].shape
    with pytest.raises(spperm.InvalidArgumentError) as e:
        pkg(np.ones((cols + 1, 4), dtype=np.float32))
    assert not str(e.value).startswith("sprt_"), str(e.value)
    with pytest.raises(spperm.UnsupportedError) as e:
        pkg[0].time(np.ones((cols, 4), dtype=np.float32), variant="nope")
    assert str(e.value).startswith("variant 'nope' is unknown"), str(e.value)


def test_empty_products(small_package):
    """C with no elements (K = 0, or A without rows) is returned as it is,
    on the NumPy and torch paths alike, without calling the runtime."""
    pkg = spperm.load(small_package)
    rows, cols = pkg[0].shape
    c = pkg(np.ones((cols, 0), dtype=np.float32))
    assert c.shape == (rows, 0)
    out = np.empty((rows, 0), dtype=np.float32)
    assert pkg(np.ones((cols, 0), dtype=np.float32), out=out) is out
    no_rows = spperm.compile(sp_csr((0, 4)))
    c = no_rows(np.ones((4, 5), dtype=np.float32))
    assert c.shape == (0, 5)
    with pytest.raises(spperm.InvalidArgumentError, match="B has"):
        no_rows(np.ones((3, 5), dtype=np.float32))
    torch = pytest.importorskip("torch")
    assert pkg(torch.ones(cols, 0)).shape == (rows, 0)
    assert no_rows(torch.ones(4, 5)).shape == (0, 5)
    t_out = torch.empty(rows, 0)
    assert pkg(torch.ones(cols, 0), out=t_out) is t_out
    # With nothing to compute, a B of another dtype is still refused.
    for b in (np.ones((cols, 0)), torch.ones(cols, 0, dtype=torch.float64)):
        with pytest.raises(spperm.InvalidArgumentError,
                           match="^B must be float32, got float64$"):
            pkg(b)
    with pytest.raises(spperm.InvalidArgumentError,
                       match="no product to time"):
        pkg[0].time(np.ones((cols, 0), dtype=np.float32))


def sp_csr(shape):
    import scipy.sparse as sp

    return sp.csr_matrix(shape, dtype=np.float32)


def test_torch_operand_views(small_package):
    """A sparse torch B is refused as such; a lazily negated view is read as
    the values it stands for."""
    torch = pytest.importorskip("torch")
    pkg = spperm.load(small_package)
    a = spperm.read_matrix(INPUTS / "small.mtx")
    b = torch.randn(a.shape[1], 6)
    with pytest.raises(spperm.InvalidArgumentError, match="dense tensor"):
        pkg(b.to_sparse())
    neg = b._neg_view()
    assert neg.is_neg()
    got = pkg(neg).numpy()
    assert normwise_error(got, reference(a, -b.numpy())) < 1e-6


def test_packages_are_not_pickled(small_package, tmp_path):
    import copy
    import pickle

    pkg = spperm.load(small_package)
    with pytest.raises(spperm.UnsupportedError, match="pkg.save"):
        pickle.dumps(pkg)
    with pytest.raises(spperm.UnsupportedError, match="spperm.load"):
        copy.deepcopy(pkg)
    # A layer too: a module holding one meets it first.
    for copier in (pickle.dumps, copy.deepcopy):
        with pytest.raises(spperm.UnsupportedError, match="a spperm Layer"):
            copier(pkg[0])
    missing_dir = tmp_path / "no" / "such" / "dir"
    with pytest.raises(spperm.PackageIOError,
                       match=f"cannot write: the directory "
                             f"{re.escape(str(missing_dir))} does not exist"):
        pkg.save(missing_dir / "p.spp")


def test_load_errors(tmp_path, small_package):
    # A missing package, and a directory that is not one, are named as
    # such (not as a missing manifest.json).
    missing = tmp_path / "missing.spp"
    with pytest.raises(spperm.PackageIOError,
                       match=f"^{re.escape(str(missing))}: cannot open: "
                             "No such file or directory$"):
        spperm.load(missing)
    empty = tmp_path / "empty.spp"
    empty.mkdir()
    with pytest.raises(spperm.PackageIOError,
                       match="is a directory, not a spperm package "
                             r"\(no manifest.json"):
        spperm.load(empty)
    with pytest.raises(spperm.SppermError, match="not a spperm package"):
        spperm.load(INPUTS / "small.mtx")
    broken = tmp_path / "broken.spp"
    import shutil

    shutil.copytree(small_package, broken)
    manifest = broken / "manifest.json"
    manifest.write_text(manifest.read_text().replace('"rows"', '"rowz"', 1))
    with pytest.raises(spperm.CorruptPackageError):
        spperm.load(broken)
    with pytest.raises(spperm.InvalidArgumentError, match="device"):
        spperm.load(small_package, device="tpu")


def test_threads_share_a_package(small_package):
    pkg = spperm.load(small_package, device="cpu")
    a = spperm.read_matrix(INPUTS / "small.mtx")
    errors = []

    def work(seed):
        rng = np.random.default_rng(seed)
        for k in (1, 5, 16):
            b = rng.standard_normal((a.shape[1], k)).astype(np.float32)
            errors.append(normwise_error(pkg(b), reference(a, b)))

    threads = [threading.Thread(target=work, args=(s,)) for s in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(errors) == 24 and max(errors) < 1e-6


def test_gpu_torch(torch_cuda):
    torch = torch_cuda
    pkg, a = compiled("gpu_torch")
    for k in (1, 32, 128, 200):
        b = torch.randn(2000, k, device="cuda")
        c = pkg(b)
        assert c.is_cuda and c.shape == (3000, k)
        ref = reference(a, b.cpu().numpy())
        assert normwise_error(c.cpu().numpy(), ref) < 1e-5
    # On a side stream: the result is ordered with that stream's work.
    side = torch.cuda.Stream()
    b = torch.randn(2000, 64, device="cuda")
    with torch.cuda.stream(side):
        c = pkg(b)
        c.mul_(2)
    side.synchronize()
    assert normwise_error(c.cpu().numpy() / 2,
                          reference(a, b.cpu().numpy())) < 1e-5
    # The CPU package and the GPU package of one object agree.
    bh = b.cpu()
    assert normwise_error(pkg(bh).numpy(),
                          reference(a, bh.numpy())) < 1e-5


def test_column_major_b(small_package):
    """An F-contiguous B (x.t() of a row-major x) gives what its
    C-contiguous copy gives, on the CPU, through DLPack and torch."""
    pkg = spperm.load(small_package)
    rows, cols = pkg[0].shape
    assert pkg[0].reads_column_major("cpu")
    rng = np.random.default_rng(3)
    for k in (1, 3, 32):
        x = rng.standard_normal((k, cols)).astype(np.float32)
        want = pkg(np.ascontiguousarray(x.T))
        np.testing.assert_array_equal(pkg(x.T), want)
        out = np.empty((rows, k), dtype=np.float32)
        pkg(x.T, out=out)
        np.testing.assert_array_equal(out, want)
        torch = pytest.importorskip("torch")
        np.testing.assert_array_equal(pkg(torch.from_numpy(x).t()).numpy(),
                                      want)


def test_gpu_column_major(torch_cuda):
    """A column-major B on the GPU: the layer's transposing kernel into the
    runtime's workspace, through torch's addresses and through DLPack, for
    K and column counts that are not multiples of the 32 x 32 tile, on a
    side stream, and captured in a CUDA graph."""
    torch = torch_cuda
    pkg, a = compiled("gpu_torch")
    layer = pkg[0]
    assert layer.reads_column_major("gpu")
    for k in (1, 5, 32, 100, 512):
        x = torch.randn(k, a.shape[1], device="cuda")
        ref = reference(a, x.t().cpu().numpy())
        for c in (pkg(x.t()), layer._slow(x.t())):
            assert c.is_cuda and c.shape == (a.shape[0], k)
            assert normwise_error(c.cpu().numpy(), ref) < 1e-5
    side = torch.cuda.Stream()
    x = torch.randn(64, a.shape[1], device="cuda")
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        c = pkg(x.t())
        c.mul_(2)
    side.synchronize()
    assert normwise_error(c.cpu().numpy() / 2,
                          reference(a, x.t().cpu().numpy())) < 1e-5
    # Captured (global mode, torch's default): the row-major copy of B is
    # the graph's own allocation.
    x = torch.randn(48, a.shape[1], device="cuda")
    c = pkg(x.t())  # the first call for this K bucket, outside the capture
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        c = pkg(x.t())
    x.copy_(torch.randn(48, a.shape[1], device="cuda"))
    graph.replay()
    torch.cuda.synchronize()
    assert normwise_error(c.cpu().numpy(),
                          reference(a, x.t().cpu().numpy())) < 1e-5


def test_gpu_in_place(torch_cuda, monkeypatch, capfd):
    """A package with in-place kernels (in_place_b="auto"): its first
    column-major call is refused under capture; with SPRT_IN_PLACE_B=always
    a column-major B runs the fastest of them once the first call has timed
    them (SPPERM_LOG_CHOICES says so), on a B 16-byte aligned and on one
    that is not (4-byte staging), and captured in a CUDA graph; with
    never, the transposing kernel; the same C within 1e-5 of float64 every
    way."""
    torch = torch_cuda
    monkeypatch.setenv("SPPERM_LOG_CHOICES", "1")
    # Its first column-major call times: refused under capture, even
    # after row-major calls for the same K.
    monkeypatch.setenv("SPRT_IN_PLACE_B", "auto")
    pkg, a = compiled("gpu_in_place")
    pkg = spperm.load(pkg.path, device="gpu")
    x = torch.randn(36, a.shape[1], device="cuda")
    pkg(x.t().contiguous())
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        with pytest.raises(spperm.InvalidArgumentError,
                           match="first column-major call for K = 36"):
            pkg(x.t())
    graph.replay()
    torch.cuda.synchronize()
    capfd.readouterr()
    for mode in ("always", "never"):
        monkeypatch.setenv("SPRT_IN_PLACE_B", mode)
        pkg, a = compiled("gpu_in_place")
        k, cols = 36, a.shape[1]
        for offset in (0, 1):
            x = torch.randn(k * cols + offset, device="cuda")[offset:]
            x = x.view(k, cols)
            c = pkg(x.t())
            assert normwise_error(c.cpu().numpy(),
                                  reference(a, x.t().cpu().numpy())) < 1e-5
        # The first call's decision (never: none to make).
        log = capfd.readouterr().err
        assert ("column-major B" in log) == (mode == "always"), log
        assert ("runs in place" in log) == (mode == "always"), log
        c = pkg(x.t())
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            c = pkg(x.t())
        x.copy_(torch.randn(k, cols, device="cuda"))
        graph.replay()
        torch.cuda.synchronize()
        assert normwise_error(c.cpu().numpy(),
                              reference(a, x.t().cpu().numpy())) < 1e-5


def test_gpu_in_place_any_k(torch_cuda, monkeypatch, capfd):
    """A package for any K with in-place kernels: with
    SPRT_IN_PLACE_B=always, every K of 8 to 128 runs an in-place kernel
    (the one of K's range, which reads K: whole and partial chunks, CTAs
    past K idle, B aligned and not), K = 1 and K above 128 the transposing
    path; C within 1e-5 of float64 each time."""
    torch = torch_cuda
    monkeypatch.setenv("SPPERM_LOG_CHOICES", "1")
    monkeypatch.setenv("SPRT_IN_PLACE_B", "always")
    pkg, a = compiled("gpu_in_place_any")
    cols = a.shape[1]
    for k in (1, 8, 9, 13, 20, 32, 36, 64, 100, 128, 200, 256, 300, 512, 600):
        for offset in (0, 1):
            x = torch.randn(k * cols + offset, device="cuda")[offset:]
            x = x.view(k, cols)
            for _ in range(2):  # the first call decides, the second runs
                c = pkg(x.t())
                assert normwise_error(c.cpu().numpy(),
                                      reference(a, x.t().cpu().numpy())) \
                    < 1e-5, (k, offset)
        log = capfd.readouterr().err
        in_place = 8 <= k <= 128
        assert ("runs in place" in log) == in_place, (k, log)
        assert (f"k = {k}, column-major B" in log) == in_place, (k, log)


def checked_in_place_layer(torch, monkeypatch, tmp_path):
    """The gpu_in_place_checked package with a tuning cache of the test's
    own, SPRT_IN_PLACE_B=auto and the choices logged: (the cache's path,
    the package's, its matrix, a row-major X of K = 32 samples on CUDA)."""
    cache = tmp_path / "tuning.json"
    monkeypatch.setenv("SPRT_TUNING_CACHE", str(cache))
    monkeypatch.setenv("SPRT_IN_PLACE_B", "auto")
    monkeypatch.setenv("SPPERM_LOG_CHOICES", "1")
    pkg, a = compiled("gpu_in_place_checked")
    return cache, pkg.path, a, torch.randn(32, a.shape[1], device="cuda")


def test_gpu_in_place_from_the_tuning_cache(torch_cuda, monkeypatch, capfd,
                                            tmp_path):
    """The first column-major call's in-place choice goes in the tuning
    cache; a new load takes an entry naming an in-place kernel without
    timing, and then captures that K under torch.cuda.graph although the
    layer (a checked one) has made no row-major decision for it."""
    import json
    torch = torch_cuda
    cache, path, a, x = checked_in_place_layer(torch, monkeypatch, tmp_path)
    spperm.load(path, device="gpu")(x.t())
    torch.cuda.synchronize()
    with open(os.path.join(path, "manifest.json")) as f:
        manifest = json.load(f)
    kernel = manifest["layers"][0]["in_place_b"][0]["name"]
    root = json.loads(cache.read_text())
    entries = [e for e in root["entries"] if e["key"]["column_major_b"]]
    assert len(entries) == 1 and entries[0]["key"]["k"] == 32, root
    entries[0]["choice"].update(in_place=kernel, variant=0)
    cache.write_text(json.dumps(root))
    capfd.readouterr()
    fresh = spperm.load(path, device="gpu")
    fresh(x.t())
    torch.cuda.synchronize()
    log = capfd.readouterr().err
    assert f"column-major B: from the tuning cache: runs {kernel}" in log, log
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        c = fresh(x.t())
    x.copy_(torch.randn_like(x))
    graph.replay()
    torch.cuda.synchronize()
    assert normwise_error(c.cpu().numpy(),
                          reference(a, x.t().cpu().numpy())) < 1e-5


def test_gpu_in_place_timed_as_graph_after_a_library_decision(
        torch_cuda, monkeypatch, capfd, tmp_path):
    """Where the layer's row-major decision for K is a cuSPARSE call, the
    in-place choice still times the transposing path and the in-place
    kernels as CUDA graphs (the library call captured on the timing's own
    stream); C matches float64 on that call, the next, and in a graph of
    the caller's."""
    import json
    torch = torch_cuda
    cache, path, a, x = checked_in_place_layer(torch, monkeypatch, tmp_path)
    # The row-major decision for K = 32, then made cuSPARSE's in the cache.
    spperm.load(path, device="gpu")(x.t().contiguous())
    torch.cuda.synchronize()
    root = json.loads(cache.read_text())
    rows = [e for e in root["entries"] if not e["key"]["column_major_b"]]
    assert len(rows) == 1 and rows[0]["key"]["k"] == 32, root
    # The entry keeps the variant it names (the fastest generated one):
    # a checked layer's library entry may name any of its variants.
    rows[0]["choice"].update(library="cusparse-spmm-csr-alg2")
    root["entries"] = rows
    cache.write_text(json.dumps(root))
    capfd.readouterr()
    fresh = spperm.load(path, device="gpu")
    for _ in range(2):  # the first call decides, the second runs
        c = fresh(x.t())
        torch.cuda.synchronize()
        assert normwise_error(c.cpu().numpy(),
                              reference(a, x.t().cpu().numpy())) < 1e-5
    log = capfd.readouterr().err
    assert "runs cusparse-spmm-csr-alg2" in log, log
    assert "k = 32, column-major B (graph): transposing" in log, log
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        c = fresh(x.t())
    for _ in range(2):
        x.copy_(torch.randn_like(x))
        graph.replay()
        torch.cuda.synchronize()
        assert normwise_error(c.cpu().numpy(),
                              reference(a, x.t().cpu().numpy())) < 1e-5


def test_gpu_capture_per_stream_state(torch_cuda):
    """Layers whose calls keep state per stream, made the first time a
    stream is seen — a cuSPARSE layer (its plan: descriptors, workspace,
    preprocessing) and an hbp layer (ticket counters) — are captured under
    torch.cuda.graph in its default (global) capture mode once their first
    call is made, with B row-major and column-major; each replay matches
    float64."""
    torch = torch_cuda
    for name in ("gpu_cusparse", "gpu_hbp"):
        pkg, a = compiled(name)
        for order in ("row", "col"):
            x = torch.randn(32, a.shape[1], device="cuda")
            b = x.t().contiguous() if order == "row" else x.t()
            pkg(b)
            torch.cuda.synchronize()
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                c = pkg(b)
            for _ in range(2):
                b.copy_(torch.randn(b.shape, device="cuda"))
                graph.replay()
                torch.cuda.synchronize()
                assert normwise_error(c.cpu().numpy(),
                                      reference(a, b.cpu().numpy())) \
                    < 1e-5, (name, order)


def test_gpu_errors(torch_cuda):
    torch = torch_cuda
    pkg, _ = compiled("gpu_errors")
    b = torch.randn(80, 8, device="cuda")
    with pytest.raises(spperm.InvalidArgumentError, match="out is on the CPU"):
        pkg(b, out=torch.empty(100, 8))
    with pytest.raises(spperm.InvalidArgumentError, match="float32"):
        pkg(b.double())
    with pytest.raises(spperm.InvalidArgumentError, match="row-major"):
        pkg(torch.randn(80, 16, device="cuda")[:, ::2])
    misaligned = torch.randn(80 * 8 + 1, device="cuda")[1:].view(80, 8)
    with pytest.raises(spperm.InvalidArgumentError, match="align"):
        pkg(misaligned)


def test_gpu_cupy(gpu):
    cupy = pytest.importorskip("cupy")
    pkg, a = compiled("gpu_cupy")
    b = cupy.random.standard_normal((400, 32), dtype=cupy.float32)
    c = pkg(b)
    assert isinstance(c, cupy.ndarray)
    assert normwise_error(cupy.asnumpy(c),
                          reference(a, cupy.asnumpy(b))) < 1e-5


def test_cpu_time_variants():
    """The CPU executor times its own product; it tells a GPU variant from
    a name no device knows."""
    a = random_csr(60, 40, 0.1, seed=21)
    pkg = spperm.compile(a, format="csr", strategy="identity")
    b = np.ones((40, 3), np.float32)
    assert len(pkg[0].time(b, runs=2)) == 2
    with pytest.raises(spperm.UnsupportedError, match="needs the GPU"):
        pkg[0].time(b, variant="spperm:1")
    with pytest.raises(spperm.UnsupportedError, match="'bogus' is unknown"):
        pkg[0].time(b, variant="bogus")


def test_time_counts_and_streams_are_checked():
    """Counts past the runtime's int32 and streams that are no stream get
    the package's own words, not the binding's."""
    a = random_csr(30, 20, 0.2, seed=22)
    pkg = spperm.compile(a, format="csr", strategy="identity")
    b = np.ones((20, 3), np.float32)
    with pytest.raises(spperm.InvalidArgumentError,
                       match=re.escape(f"warmup must be in [0, 100000], "
                                       f"got {2**71}")):
        pkg[0].time(b, warmup=2**71)
    with pytest.raises(spperm.InvalidArgumentError, match="runs must be in"):
        pkg[0].time(b, runs=0)
    # spperm-run's bound, checked before the times' host buffer (4 bytes a
    # run: 8 GB at 2^31 - 1) is allocated.
    with pytest.raises(spperm.InvalidArgumentError,
                       match=re.escape("runs must be in [1, 100000], got "
                                       "2147483647")):
        pkg[0].time(b, runs=2**31 - 1)
    with pytest.raises(TypeError, match="warmup must be an integer, got float"):
        pkg[0].time(b, warmup=1.5)
    for stream in (object(), "12", b"0", 1.5, True):
        with pytest.raises(TypeError,
                           match="stream must be a torch.cuda.Stream"):
            pkg(b, stream=stream)
    with pytest.raises(spperm.InvalidArgumentError,
                       match="stream handle -1 is not a cudaStream_t"):
        pkg(b, stream=-1)
    assert len(pkg[0].time(b, warmup=0, runs=1, stream=0)) == 1


def test_gpu_time(torch_cuda):
    torch = torch_cuda
    pkg, _ = compiled("gpu_time")
    b = torch.randn(1000, 32, device="cuda")
    times = pkg[0].time(b, runs=5)
    assert len(times) == 5 and min(times) > 0
    assert len(pkg[0].time(b, variant="cusparse-spmm-default", runs=3)) == 3


def test_gpu_first_call_under_capture_is_refused(torch_cuda):
    """The first call for a K bucket times its variants: under CUDA-graph
    capture it is refused, and the capture stays valid."""
    torch = torch_cuda
    pkg, _ = compiled("gpu_errors")
    pkg = spperm.load(pkg.path, device="gpu")  # loading allocates: before
    b = torch.randn(80, 16, device="cuda")
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        with pytest.raises(spperm.InvalidArgumentError,
                           match="being captured into a CUDA graph"):
            pkg(b)
    graph.replay()
    torch.cuda.synchronize()
