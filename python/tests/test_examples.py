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
