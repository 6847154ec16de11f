"""The spperm wheel: ``pip install .`` (pyproject.toml; docs/Python.md,
"Installing"). The runtime-only wheel is built here, installed into a
folder of its own, and run from there in a fresh interpreter."""

import pathlib
import shutil
import subprocess
import sys
import textwrap
import zipfile

import pytest

from conftest import INPUTS, ROOT


def test_runtime_wheel_installs_and_runs(tmp_path, small_package):
    pytest.importorskip(
        "scikit_build_core",
        reason="scikit-build-core is not installed (python/requirements.txt "
        "has it; the GPU machine's environment does not)")
    wheels = tmp_path / "wheels"
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps",
         "--no-build-isolation", "-w", str(wheels),
         "-C", f"build-dir={tmp_path / 'build'}",
         "-C", "cmake.define.SPPERM_ENABLE_COMPILER=OFF"],
        capture_output=True, text=True)
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    (wheel,) = wheels.glob("spperm-*.whl")

    # The package's Python files and the runtime half, nothing else.
    names = zipfile.ZipFile(wheel).namelist()
    files = {n.split("/", 1)[1] for n in names if n.startswith("spperm/")}
    sources = {p.name for p in (ROOT / "python" / "spperm").iterdir()
               if p.suffix == ".py" or p.name == "py.typed"}
    assert sources <= files
    extensions = files - sources
    assert len(extensions) == 1 and extensions.pop().startswith("_core."), files
    assert all(n.startswith(("spperm/", "spperm-")) for n in names), names

    site = tmp_path / "site"
    install = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--target",
         str(site), str(wheel)], capture_output=True, text=True)
    assert install.returncode == 0, install.stdout + install.stderr

    # The installed package, first on the path: it loads and runs a package
    # on the CPU, and says it cannot compile.
    script = textwrap.dedent(f"""
        import numpy as np, spperm
        assert spperm.__file__.startswith({str(site)!r}), spperm.__file__
        a = spperm.read_matrix({str(INPUTS / 'small.mtx')!r})
        b = np.random.default_rng(1).standard_normal(
            (a.shape[1], 8)).astype(np.float32)
        c = spperm.load({str(small_package)!r}, device="cpu")(b)
        ref = a.astype(np.float64) @ b.astype(np.float64)
        err = np.linalg.norm(c - ref) / np.linalg.norm(ref)
        assert err <= 1e-6, err
        try:
            spperm.compile(a)
        except spperm.UnsupportedError as e:
            assert "no compiler" in str(e), e
        else:
            raise AssertionError("the runtime-only wheel compiled")
        print("ok", err)
        """)
    run = subprocess.run([sys.executable, "-c", script], capture_output=True,
                         text=True, env={"PYTHONPATH": str(site),
                                         "PATH": "/usr/bin:/bin"})
    assert run.returncode == 0 and run.stdout.startswith("ok"), (
        run.stdout + run.stderr)


def _configure(build, *defines):
    """Configures the project into `build` as pip's builds do
    (SPPERM_ENABLE_COMPILER=AUTO); returns CMake's output."""
    cmake = shutil.which("cmake")
    if cmake is None:
        pytest.skip("no cmake here")
    generator = ["-G", "Ninja"] if shutil.which("ninja") else []
    run = subprocess.run(
        [cmake, "-S", str(ROOT), "-B", str(build), *generator,
         "-DSPPERM_ENABLE_COMPILER=AUTO", "-DSPPERM_ENABLE_TESTS=OFF",
         f"-DPython_EXECUTABLE={sys.executable}", *defines],
        capture_output=True, text=True)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    return run.stdout


def _has_compiler_target(build):
    """Whether the configured build makes spperm._compiler."""
    return (build / "python" / "CMakeFiles" / "_compiler.dir").is_dir()


def test_auto_compiler_is_decided_at_every_configure(tmp_path):
    """AUTO leaves the compiler out where no LLVM/MLIR 22 is found, builds it
    where it is, and decides again when the build folder is configured
    again (an earlier decision does not stick)."""
    if not pathlib.Path("/usr/lib/llvm-22/lib/cmake/mlir").is_dir():
        pytest.skip("no LLVM/MLIR 22 here (the runtime-only machine)")
    build = tmp_path / "build"
    out = _configure(build, "-DCMAKE_DISABLE_FIND_PACKAGE_MLIR=ON")
    assert "LLVM/MLIR 22 not found: the runtime half alone" in out, out
    assert not _has_compiler_target(build)
    out = _configure(build, "-DCMAKE_DISABLE_FIND_PACKAGE_MLIR=OFF")
    assert "LLVM/MLIR 22 found in" in out, out
    assert _has_compiler_target(build)
