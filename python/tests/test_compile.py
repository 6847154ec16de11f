"""spperm.compile and spperm.inspect on every kind of input, and their
errors."""

import json
import re
import os
import subprocess

import numpy as np
import pytest

import spperm
from conftest import INPUTS, ROOT, normwise_error, random_csr, reference

sp = pytest.importorskip("scipy.sparse")


def check_product(pkg, a, k=8, seed=0):
    b = np.random.default_rng(seed).standard_normal(
        (a.shape[1], k)).astype(np.float32)
    c = pkg(b)
    assert c.shape == (a.shape[0], k) and c.dtype == np.float32
    assert normwise_error(c, reference(a, b)) < 1e-5


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo", "bsr", "lil", "dok"])
def test_scipy_formats(fmt):
    a = random_csr(120, 90, 0.05, seed=1)
    pkg = spperm.compile(a.asformat(fmt), strategy="identity", format="csr")
    assert pkg[0].name == "matrix" and pkg[0].nnz == a.nnz
    check_product(pkg, a)


def test_duplicates_are_summed_and_explicit_zeros_kept():
    row = np.array([0, 0, 1, 2, 2])
    col = np.array([3, 3, 1, 0, 2])
    val = np.array([1.0, 2.0, 0.0, 4.0, 5.0], dtype=np.float32)
    a = sp.coo_matrix((val, (row, col)), shape=(3, 4))
    pkg = spperm.compile(a, strategy="identity", format="csr")
    assert pkg[0].nnz == 4  # (0,3) summed; the explicit zero (1,1) kept
    check_product(pkg, a.tocsr())


def test_torch_inputs():
    torch = pytest.importorskip("torch")
    a = random_csr(64, 48, 0.1, seed=2)
    dense = torch.from_numpy(a.toarray())
    for t in (dense, dense.to_sparse(), dense.to_sparse_csr()):
        pkg = spperm.compile(t, strategy="identity", format="csr")
        assert pkg[0].nnz == a.nnz
        check_product(pkg, a)


def test_dense_numpy_and_lists():
    a = random_csr(40, 30, 0.2, seed=3)
    check_product(spperm.compile(a.toarray(), format="csr"), a)
    pkg = spperm.compile([[0, 1.5], [2, 0]], format="csr")
    assert pkg[0].nnz == 2


def test_matrix_files(tmp_path):
    a = spperm.read_matrix(INPUTS / "small.mtx")
    for path in (INPUTS / "small.mtx", INPUTS / "small.smtx"):
        pkg = spperm.compile(path, format="csr")
        assert pkg[0].name == "small"
        assert pkg[0].shape == a.shape
    npz = tmp_path / "w.npz"
    sp.save_npz(npz, random_csr(50, 70, 0.1, seed=4).tocsc())
    pkg = spperm.compile(npz, name="fc", format="csr")
    assert pkg[0].name == "fc" and pkg[0].shape == (50, 70)
    # The default name is the file's stem, as for .mtx files.
    assert spperm.compile(npz, format="csr")[0].name == "w"
    dia = tmp_path / "d.npz"
    sp.save_npz(dia, random_csr(20, 20, 0.1, seed=5).todia())
    with pytest.raises(spperm.CompileError,
                       match=r"format 'dia' is not read .*A\.tocsr\(\)"):
        spperm.compile(dia)


def test_mlir_module_layers(tmp_path):
    module = tmp_path / "two.mlir"
    small = INPUTS / "small.mtx"
    module.write_text(f"""
func.func @first(%b: tensor<5x?xf32>) -> tensor<4x?xf32> {{
  %a = spperm.load "{small}" : !spperm.matrix<4x5xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<4x5xf32, #spperm.csr>, tensor<5x?xf32> -> tensor<4x?xf32>
  return %c : tensor<4x?xf32>
}}
func.func @second(%b: tensor<5x?xf32>) -> tensor<4x?xf32> {{
  %a = spperm.load "{small}" {{values = "ones"}} : !spperm.matrix<4x5xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<4x5xf32, #spperm.csr>, tensor<5x?xf32> -> tensor<4x?xf32>
  return %c : tensor<4x?xf32>
}}
""")
    pkg = spperm.compile(module)
    assert [layer.name for layer in pkg] == ["first", "second"]
    a = spperm.read_matrix(small)
    b = np.ones((5, 3), dtype=np.float32)
    assert normwise_error(pkg["first"](b), reference(a, b)) < 1e-6
    ones = spperm.read_matrix(small, values="ones")
    assert normwise_error(pkg["second"](b), reference(ones, b)) < 1e-6
    with pytest.raises(spperm.InvalidArgumentError, match="2 layers"):
        pkg(b)
    with pytest.raises(spperm.LayerNotFoundError, match="no layer named"):
        pkg["third"]


def test_options_and_k():
    a = random_csr(200, 200, 0.03, seed=5)
    # Options that the fixed K, strategy and format leave unused are said.
    with pytest.warns(UserWarning) as said:
        pkg = spperm.compile(a, k=16, strategy="lpt", format="csr",
                             k_buckets=[32], block=8, alpha=0.5,
                             no_library_check=True)
    assert sorted(str(w.message) for w in said) == [
        "--alpha is ignored: it applies to the bsa strategy and --strategy "
        "lpt is fixed",
        "--block is ignored: it applies to bell layers and --format csr "
        "makes none",
        "--k-buckets is ignored: it applies to packages for any K and --k 16 "
        "compiles the matrix for one"]
    assert all(w.filename == __file__ for w in said)
    layer = pkg[0]
    assert (layer.k, layer.strategy, layer.format) == (16, "lpt", "csr")
    check_product(pkg, a, k=16)
    with pytest.raises(spperm.InvalidArgumentError, match="k"):
        pkg(np.zeros((200, 8), dtype=np.float32))


def test_cusparse_format_says_so():
    """A layer compiled to run through cuSPARSE says so (the manifest's
    format is its CSR's): Layer.format is "cusparse", and it computes the
    product (docs/RuntimeABI.md, sprt_layer_info)."""
    a = random_csr(200, 150, 0.05, seed=5)
    pkg = spperm.compile(a, format="cusparse")
    assert pkg[0].format == "cusparse"
    assert "format=cusparse" in repr(pkg[0])
    check_product(pkg, a, k=8)


@pytest.mark.parametrize("kwargs, message", [
    (dict(k=-1), "--k must be"),
    (dict(k=1.5), "^--k must be an integer, got '1.5'"),
    (dict(strategy="fastest"), "--strategy: unknown value 'fastest'"),
    (dict(format="coo"), "--format: unknown value 'coo'"),
    (dict(bogus=3), r"^unknown option bogus= \(compile\(\) takes [^;]*\)$"),
    # Slips name what was meant.
    (dict(presicion="tf32"), r"unknown option presicion= .*; did you mean "
                             r"'precision'\?$"),
    (dict(kbuckets=[32]), r"did you mean 'k_buckets'\?$"),
    (dict(strategy="hybrid-2"), r"did you mean one of 'hybrid-2.1', "
                                r"'hybrid-2.2', 'hybrid-2.3'\?$"),
    (dict(format="CSR"), r"did you mean 'csr'\?$"),
    # A key that is not valid UTF-8 (a lone surrogate) still gets its hint.
    ({"presicion\udc80": "tf32"}, "unknown option presicion\udc80= .*; "
                                  r"did you mean 'precision'\?$"),
    # spperm-compile's flags that compile() has another way for.
    (dict(timing=True), r"^timing= is not an option of compile\(\): the "
                        r"stage times are the returned package's .stages$"),
    # Values of the wrong kind, in spperm's words rather than a TypeError.
    (dict(k=True), r"^k= takes a value \(--k=VALUE\), not True$"),
    (dict(no_library_check="yes"), r"^no_library_check= is a flag"),
    (dict(store_alternatives="yes"), r"^store_alternatives= is a flag"),
    (dict(verbose="x"), r"^verbose= is a flag"),
    (dict(size_budget="x"), r"^size_budget= must be a number"),
    (dict(size_budget=None), r"^size_budget= must be a number"),
    (dict(values="ones"), "values= and data= apply to matrix files"),
    (dict(name="not a name"), "must match"),
    # An empty name is refused, not replaced by "matrix".
    (dict(name=""), r"^layer name '' must match"),
    # Control characters are escaped: the message stays one line.
    (dict(name="a\nb"), r"^layer name 'a\\x0ab' must match [^\n]*$"),
])
def test_option_errors(kwargs, message):
    with pytest.raises(spperm.CompileError, match=message):
        spperm.compile(random_csr(10, 10, 0.3, seed=6), **kwargs)


def test_input_errors(tmp_path):
    # A missing file is an OSError everywhere a path is read, in the tools'
    # words; a package is not a matrix.
    missing = tmp_path / "missing.mtx"
    said = f"^{re.escape(str(missing))}: cannot open: No such file or directory$"
    for read in (spperm.compile, spperm.read_matrix, spperm.inspect):
        with pytest.raises(spperm.PackageIOError, match=said):
            read(missing)
        with pytest.raises(OSError):
            read(str(missing))
    pkg_dir = tmp_path / "p.spp"
    spperm.compile(INPUTS / "small.mtx", output=pkg_dir)
    for read in (spperm.compile, spperm.read_matrix, spperm.inspect):
        with pytest.raises(spperm.InvalidArgumentError,
                           match="is a package, not a matrix file"):
            read(pkg_dir)
    bad = tmp_path / "bad.mtx"
    bad.write_text("%%MatrixMarket matrix coordinate real general\n2 2 1\n0 1 1.0\n")
    with pytest.raises(spperm.CompileError, match="1-based"):
        spperm.compile(bad)
    # A bad matrix is a ValueError whichever function reads it.
    for read in (spperm.compile, spperm.read_matrix, spperm.inspect):
        with pytest.raises(ValueError, match="1-based"):
            read(bad)
    with pytest.raises(spperm.InvalidArgumentError, match="not numbers"):
        spperm.compile(np.array([["a"]]))
    with pytest.raises(spperm.InvalidArgumentError, match="not numbers"):
        spperm.compile(np.array([[np.datetime64("2026-01-01")]]))
    # An output where nothing can be written: an OSError before any work,
    # in the tools' words.
    with pytest.raises(spperm.PackageIOError,
                       match="cannot write: the directory .*no-dir does not "
                             "exist"):
        spperm.compile(INPUTS / "small.mtx", output=tmp_path / "no-dir" /
                       "p.spp")
    nan = sp.csr_matrix(np.array([[np.nan, 1.0]], dtype=np.float32))
    with pytest.raises(spperm.InvalidArgumentError, match="finite"):
        spperm.compile(nan)
    with pytest.raises(spperm.InvalidArgumentError, match="complex"):
        spperm.compile(sp.csr_matrix(np.array([[1j, 0]])))
    with pytest.raises(spperm.InvalidArgumentError, match="3 dimensions"):
        spperm.compile(np.zeros((2, 2, 2)))
    with pytest.raises(spperm.InvalidArgumentError, match="cannot read"):
        spperm.compile(object())


def test_output_save_and_load(tmp_path):
    a = random_csr(60, 60, 0.1, seed=7)
    out = tmp_path / "a.spp"
    pkg = spperm.compile(a, format="csr", output=out)
    assert pkg.path == str(out) and (out / "manifest.json").is_file()
    check_product(spperm.load(out), a)
    # A compiled package lives in a temporary directory until saved; saving
    # over a package replaces it; over anything else is refused.
    tmp_pkg = spperm.compile(a * 2, format="csr")
    saved = tmp_path / "b.spp"
    tmp_pkg.save(saved)
    tmp_pkg.save(saved)
    check_product(spperm.load(saved, device="cpu"), a * 2)
    (tmp_path / "notpkg").mkdir()
    (tmp_path / "notpkg" / "keep.txt").write_text("mine")
    with pytest.raises(spperm.InvalidArgumentError, match="is not a spperm package"):
        tmp_pkg.save(tmp_path / "notpkg")
    assert (tmp_path / "notpkg" / "keep.txt").read_text() == "mine"
    # compile(output=) refuses it as save does, before any work.
    with pytest.raises(spperm.InvalidArgumentError,
                       match="is not a spperm package"):
        spperm.compile(a, output=tmp_path / "notpkg")
    assert not [p for p in os.listdir(tmp_path) if ".tmp-" in p]


def test_temporary_directory_goes_with_the_package():
    import gc

    pkg = spperm.compile(random_csr(20, 20, 0.2, seed=8), format="csr")
    directory = os.path.dirname(pkg.path)
    assert os.path.isdir(directory)
    del pkg
    gc.collect()
    assert not os.path.exists(directory)


def test_report(tmp_path):
    report = tmp_path / "r.html"
    spperm.compile(random_csr(40, 40, 0.1, seed=9), format="csr",
                   report=report)
    assert "<svg" in report.read_text()
    # A report that cannot be written: an OSError before any work, as an
    # output's, and no package.
    with pytest.raises(spperm.PackageIOError,
                       match="cannot write: the directory .*no-dir does not "
                             "exist"):
        spperm.compile(random_csr(40, 40, 0.1, seed=9),
                       report=tmp_path / "no-dir" / "r.html",
                       output=tmp_path / "p.spp")
    with pytest.raises(spperm.PackageIOError, match="r.html: is a directory"):
        (tmp_path / "d" / "r.html").mkdir(parents=True)
        spperm.compile(random_csr(40, 40, 0.1, seed=9),
                       report=tmp_path / "d" / "r.html")
    assert not (tmp_path / "p.spp").exists()


def test_inspect_matches_the_cli():
    cli = json.loads(subprocess.run(
        [str(ROOT / "build" / "bin" / "spperm-inspect"),
         str(INPUTS / "small.mtx"), "--json"],
        check=True, capture_output=True, text=True).stdout)
    for features in (spperm.inspect(INPUTS / "small.mtx"),
                     spperm.inspect(spperm.read_matrix(INPUTS / "small.mtx"))):
        for key in ("rows", "cols", "nnz", "density", "row_nnz", "warp_load",
                    "hamming"):
            assert features[key] == pytest.approx(cli[key]), key


def test_compile_stages_are_reported():
    pkg = spperm.compile(random_csr(30, 30, 0.1, seed=10), format="csr")
    stages = dict(pkg.stages)
    assert {"features", "codegen", "packaging"} <= set(stages)
    assert all(s >= 0 for s in stages.values())


def test_packages_hold_no_repeated_variant(tmp_path):
    """A bell variant without a dense block is csr: the package keeps one
    of the two (docs/Package.md), as spperm-inspect PKG shows."""
    for seed in range(4):
        a = random_csr(400, 400, 0.01, seed=20 + seed, skew=seed % 2 == 1)
        out = tmp_path / f"p{seed}.spp"
        spperm.compile(a, output=out)
        info = json.loads(subprocess.run(
            [str(ROOT / "build" / "bin" / "spperm-inspect"), str(out),
             "--json"], check=True, capture_output=True, text=True).stdout)
        variants = info["layers"][0]["variants"]
        plain = [v["strategy"] for v in variants
                 if v["format"] == "csr" or "width 0," in v["format"]]
        assert len(plain) == len(set(plain)), variants
        # Arrays several variants take alike (a row order's "order") are
        # uploaded once: at most the variants' sum, at least the largest.
        gpu = info["layers"][0]["gpu_array_bytes"]
        assert gpu <= sum(v["gpu_bytes"] for v in variants), info
        assert gpu >= max(v["gpu_bytes"] for v in variants), info
        # 400 columns: the kernels take 16-bit column indices, 2 bytes less
        # per csr entry on the GPU than stored (bell: per residual entry).
        for v in variants:
            if v["format"] == "csr":
                assert v["gpu_bytes"] == v["array_bytes"] - 2 * a.nnz, v
            else:
                assert v["gpu_bytes"] <= v["array_bytes"], v


def test_twin_variants_share_their_gpu_arrays(tmp_path):
    """A bell variant and its tensor-core twin take the same arrays: the GPU
    holds them once (docs/RuntimeABI.md, "Device memory"), and
    spperm-inspect PKG counts them once."""
    rng = np.random.default_rng(3)
    blocks = rng.random((32, 32)) < 0.15
    dense = np.kron(blocks, np.ones((16, 16))) * rng.standard_normal((512, 512))
    out = tmp_path / "twins.spp"
    spperm.compile(sp.csr_matrix(dense.astype(np.float32)), output=out,
                   format="bell")
    info = json.loads(subprocess.run(
        [str(ROOT / "build" / "bin" / "spperm-inspect"), str(out), "--json"],
        check=True, capture_output=True, text=True).stdout)
    layer = info["layers"][0]
    bell = [v for v in layer["variants"] if v["format"].startswith("bell")]
    base = [v for v in bell if not v["tensor_cores"]]
    twin = [v for v in bell if v["tensor_cores"] == "bell-3xtf32"]
    assert len(base) == len(twin) == 1 and len(bell) == 2, layer
    base, twin = base[0], twin[0]
    assert base["gpu_bytes"] == twin["gpu_bytes"] > 0, layer
    # The other variants (if the shortlist has any) take arrays of their
    # own; the twins' count once.
    others = sum(v["gpu_bytes"] for v in layer["variants"] if v not in bell)
    assert layer["gpu_array_bytes"] <= others + base["gpu_bytes"], layer
    assert layer["gpu_array_bytes"] >= base["gpu_bytes"], layer


def test_rebuilt_alternatives_keep_the_package_small(tmp_path):
    """Alternatives the layer's matrix reproduces are rebuilt at load, not
    stored (docs/Package.md, "Rebuilt alternatives"); both packages compute
    the same C."""
    a = random_csr(600, 500, 0.02, seed=31, skew=True)
    lean = spperm.compile(a, output=tmp_path / "lean.spp")
    stored = spperm.compile(a, output=tmp_path / "stored.spp",
                            store_alternatives=True)
    manifest = json.loads((tmp_path / "lean.spp" / "manifest.json").read_text())
    alternatives = manifest["layers"][0].get("alternatives", [])
    assert alternatives and all(alt.get("rebuilt") for alt in alternatives)
    size = lambda p: (p / "data.bin").stat().st_size
    assert size(tmp_path / "lean.spp") < size(tmp_path / "stored.spp")
    csr = 4 * (a.shape[0] + 1) + 8 * a.nnz
    assert size(tmp_path / "lean.spp") <= 2 * csr
    b = np.random.default_rng(0).standard_normal((500, 16)).astype(np.float32)
    for pkg in (spperm.load(tmp_path / "lean.spp"), stored):
        assert normwise_error(pkg(b), reference(a, b)) < 1e-5


def test_size_budget_drops_padded_variants(tmp_path):
    """A few dense rows pad Blocked-ELL storage to ~17x the matrix: within
    the default budget (2x the CSR bytes) no such variant is kept, and the
    package computes the same C (docs/Package.md, "Size budget")."""
    a = random_csr(3000, 2000, 0.01, seed=11, skew=True)
    csr = 4 * (a.shape[0] + 1) + 8 * a.nnz
    sizes = {}
    for budget in (0, 2):
        out = tmp_path / f"b{budget}.spp"
        pkg = spperm.compile(a, output=out, size_budget=budget)
        info = json.loads(subprocess.run(
            [str(ROOT / "build" / "bin" / "spperm-inspect"), str(out),
             "--json"], check=True, capture_output=True, text=True).stdout)
        variants = info["layers"][0]["variants"]
        sizes[budget] = max(v["array_bytes"] for v in variants)
        b = np.ones((2000, 8), dtype=np.float32)
        assert normwise_error(pkg(b), reference(a, b)) < 1e-5
    # (Without a budget the selector's padded bell variants, 17x the CSR
    # with the shipped model, are kept.)
    assert sizes[2] <= 2 * csr <= sizes[0] or sizes[0] <= 2 * csr
    assert sizes[2] <= min(sizes[0], 2 * csr)
    # The tool's words (spperm-compile --size-budget -1).
    with pytest.raises(spperm.CompileError,
                       match=r"--size-budget must be a number in "
                             r"\[0, 1e\+09\], got '-1'$"):
        spperm.compile(a, size_budget=-1)
    with pytest.raises(spperm.CompileError, match=r"got '2e\+09'$"):
        spperm.compile(a, size_budget=2e9)


def _module(tmp_path, func_name):
    module = tmp_path / "named.mlir"
    small = INPUTS / "small.mtx"
    module.write_text(f"""
func.func @{func_name}(%b: tensor<5x?xf32>) -> tensor<4x?xf32> {{
  %a = spperm.load "{small}" : !spperm.matrix<4x5xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<4x5xf32, #spperm.csr>, tensor<5x?xf32> -> tensor<4x?xf32>
  return %c : tensor<4x?xf32>
}}
""")
    return module


def test_mlir_layer_names(tmp_path):
    # A module names its layers after its functions: name= would be ignored.
    with pytest.raises(spperm.CompileError,
                       match="a layer name applies to matrix inputs"):
        spperm.compile(_module(tmp_path, "fc"), name="other")
    # A function name a package cannot hold is refused at the function, in
    # one line, before any work.
    with pytest.raises(spperm.CompileError,
                       match=r"^[^\n]*named\.mlir:2:1: layer name 'fc\\x0a1' "
                             r"must be 1 to 1024 bytes of UTF-8 text without "
                             r"control characters$"):
        spperm.compile(_module(tmp_path, '"fc\\0A1"'))
    with pytest.raises(spperm.CompileError, match=r"layer name 'x{200}'\.\.\. "):
        spperm.compile(_module(tmp_path, "x" * 2000))
    # Any other UTF-8 text is a name, as the package format allows.
    pkg = spperm.compile(_module(tmp_path, '"fc 1"'))
    assert pkg["fc 1"].name == "fc 1"


def test_targets_the_kernels_cannot_use_are_refused():
    # sm_60 is an architecture LLVM knows, but the kernels need sm_80: it
    # used to abort the interpreter inside LLVM's instruction selection.
    with pytest.raises(spperm.CompileError, match="sm_80 or later"):
        spperm.compile(np.eye(4, dtype=np.float32), target="sm_60")


def test_packages_are_not_written_inside_packages(tmp_path):
    a = random_csr(20, 20, 0.2, seed=9)
    outer = tmp_path / "outer.spp"
    pkg = spperm.compile(a, format="csr", output=outer)
    # The same error from both, before any work.
    with pytest.raises(spperm.InvalidArgumentError,
                       match="is inside the package"):
        spperm.compile(a, format="csr", output=outer / "inner.spp")
    with pytest.raises(spperm.InvalidArgumentError,
                       match="is inside the package"):
        pkg.save(outer / "inner.spp")
    assert sorted(os.listdir(outer)) == sorted(os.listdir(tmp_path / "outer.spp"))
    assert not (outer / "inner.spp").exists()


def test_paths_as_bytes_and_bad_layer_keys(tmp_path):
    a = random_csr(20, 20, 0.2, seed=10)
    pkg = spperm.compile(a, format="csr")
    dest = os.fsencode(tmp_path / "b.spp")
    pkg.save(dest)
    check_product(spperm.load(dest, device="cpu"), a)
    with pytest.raises(TypeError, match="index or name, got float"):
        pkg[0.0]
    with pytest.raises(IndexError, match="layer index 1 out of range"):
        pkg[1]
    assert pkg[-1].name == "matrix"


def test_meta_tensors_are_refused():
    torch = pytest.importorskip("torch")
    with pytest.raises(spperm.InvalidArgumentError, match="meta device"):
        spperm.compile(torch.empty(3, 3, device="meta"))


def test_paths_with_nul_and_bad_out(tmp_path):
    a = random_csr(20, 20, 0.2, seed=11)
    pkg = spperm.compile(a, format="csr", output=tmp_path / "a.spp")
    # A NUL would make the file system read a shorter path: another file.
    with pytest.raises(spperm.InvalidArgumentError, match="NUL"):
        spperm.load(str(tmp_path / "a.spp") + "\0garbage")
    with pytest.raises(spperm.InvalidArgumentError, match="NUL"):
        pkg.save(str(tmp_path / "b.spp") + "\0x")
    # A file name that is not UTF-8 (undecodable bytes, as os.fsdecode
    # gives them) is refused by name, not by the binding.
    with pytest.raises(spperm.InvalidArgumentError, match="not valid UTF-8"):
        spperm.load(str(tmp_path / "a\udcff.spp"))
    with pytest.raises(spperm.InvalidArgumentError, match="not valid UTF-8"):
        pkg.save(os.fsencode(tmp_path) + b"/\xff.spp")
    with pytest.raises(spperm.InvalidArgumentError,
                       match="model=.* is not valid UTF-8"):
        spperm.compile(a, model=str(tmp_path / "m\udcff.json"))
    b = np.ones((20, 4), dtype=np.float32)
    with pytest.raises(spperm.InvalidArgumentError, match="out must be 2-D"):
        pkg(b, out=np.empty(20 * 4, dtype=np.float32))
    wide = np.lib.stride_tricks.as_strided(
        np.zeros(1, dtype=np.float32), (20, 2**31), (0, 4))
    with pytest.raises(spperm.InvalidArgumentError, match="less than 2\\^31"):
        pkg(wide)


def test_npz_index_messages_show_the_value(tmp_path):
    # A uint64 index past INT64_MAX is quoted as it is, not as 0.
    path = tmp_path / "big.npz"
    np.savez(path, format=np.array("csr"), shape=np.array([2, 5]),
             indptr=np.array([0, 1, 1]),
             indices=np.array([2**63 + 2], dtype=np.uint64),
             data=np.array([1.0], dtype=np.float32))
    with pytest.raises(spperm.SppermError, match="9223372036854775810"):
        spperm.read_matrix(path)


def test_save_is_the_writers_atomic_replace(tmp_path):
    a = random_csr(30, 30, 0.1, seed=12)
    pkg = spperm.compile(a, format="csr")
    dest = tmp_path / "b.spp"
    # A save killed before it finished leaves its temporary directory,
    # named with its PID as the compiler's are: the next save sweeps it.
    stale = tmp_path / ".b.spp.tmp-999999999-abcdef"
    stale.mkdir()
    (stale / "manifest.json").write_text("{}")
    pkg.save(dest)
    pkg.save(dest)  # over the package: exchanged, the old one removed
    assert sorted(os.listdir(tmp_path)) == ["b.spp"]
    assert sorted(os.listdir(dest)) == sorted(os.listdir(pkg.path))
    check_product(spperm.load(dest, device="cpu"), a)
    # Saving a package onto itself keeps it whole.
    saved = spperm.load(dest)
    saved.save(dest)
    check_product(spperm.load(dest, device="cpu"), a)


def test_ctrl_c_stops_a_compile_and_writes_nothing(tmp_path):
    """A SIGINT during spperm.compile raises KeyboardInterrupt at the
    compile's next pass, not after the whole compile,
    and writes nothing."""
    import signal
    import threading
    import time

    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals reach the main thread only")
    n = 60000  # 10 entries a row: about 2.5 s to compile on 2 cores
    rng = np.random.default_rng(1)
    a = sp.csr_matrix((rng.random(10 * n, dtype=np.float32),
                       rng.integers(0, n, 10 * n),
                       np.arange(0, 10 * n + 1, 10)), shape=(n, n))
    out = tmp_path / "a.spp"
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
    start = time.perf_counter()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            spperm.compile(a, output=out)
    finally:
        timer.cancel()
    # Stopped before the package was written (an uninterrupted compile
    # writes it), within a pass's time of the signal.
    assert not out.exists() and os.listdir(tmp_path) == []
    assert time.perf_counter() - start < 60
