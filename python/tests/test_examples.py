"""The PyTorch example runs and checks itself (a small configuration)."""

import subprocess
import sys

import pytest

from conftest import ROOT

pytest.importorskip("torch")


def test_prune_transformer(tmp_path):
    script = ROOT / "examples" / "pytorch" / "prune_transformer.py"
    common = ["--d-model", "64", "--layers", "1", "--tokens", "8",
              "--device", "cpu", "--packages", str(tmp_path)]
    out = subprocess.run([sys.executable, str(script), *common],
                         check=True, capture_output=True, text=True).stdout
    assert "normwise difference" in out and "compiled 2 layers" in out
    out = subprocess.run([sys.executable, str(script), *common, "--load"],
                         check=True, capture_output=True, text=True).stdout
    assert "loaded 2 layers" in out


@pytest.mark.parametrize("args, message", [
    (["--tokens", "0"], "--tokens, --layers and --d-model must be at least 1"),
    (["--sparsity", "1.5"], "--sparsity must be in [0, 1]"),
])
def test_prune_transformer_refuses_bad_options(args, message):
    """Options that would make the example check nothing (no tokens: a NaN
    difference that passed) are refused before any work."""
    script = ROOT / "examples" / "pytorch" / "prune_transformer.py"
    run = subprocess.run([sys.executable, str(script), "--device", "cpu",
                          *args], capture_output=True, text=True)
    assert run.returncode == 2 and message in run.stderr
    assert "compiled" not in run.stdout
