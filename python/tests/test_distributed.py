"""spperm.distributed: sharded packages, one rank per process, through
torch.distributed (docs/Distributed.md). On the CPU with the gloo backend
(every machine): 1-D, 1.5-D in chunks and the gather against float64; on
several GPUs with NCCL where the machine has them (skipped otherwise, with
the reason)."""

import os
import pathlib
import tempfile

import numpy as np
import pytest

import spperm
from conftest import normwise_error, random_csr, reference

torch = pytest.importorskip("torch")
dist = pytest.importorskip("torch.distributed")


def _rank(rank, ranks, backend, init, pkg_path, a_path, k, out_dir):
    """One rank: load its shards, run 1-D, 1.5-D and the gather, save C."""
    import scipy.sparse as sp
    import torch
    import torch.distributed as dist

    import spperm.distributed as sd

    if backend == "nccl":
        torch.cuda.set_device(rank)
    dist.init_process_group(backend, init_method=init, rank=rank,
                            world_size=ranks)
    device = "cuda" if backend == "nccl" else "cpu"
    a = sp.load_npz(a_path)
    b = torch.from_numpy(np.random.default_rng(3).standard_normal(
        (a.shape[1], k)).astype(np.float32)).to(device)
    pkg = sd.load(pkg_path)
    layer = pkg[0]
    one_d = layer(b)
    lo, hi = layer.b_rows
    one_five = layer.allgather(b[lo:hi].contiguous(), chunk=3)
    # No columns: an empty C, nothing gathered; chunk=0 is refused.
    assert layer.allgather(b[lo:hi, :0].contiguous()).shape == (
        layer.row_end - layer.row_begin, 0)
    try:
        layer.allgather(b[lo:hi].contiguous(), chunk=0)
        raise AssertionError("chunk=0 was accepted")
    except spperm.InvalidArgumentError:
        pass
    whole = layer.gather(one_d)
    np.savez(os.path.join(out_dir, f"rank{rank}.npz"),
             rows=np.array([layer.row_begin, layer.row_end, layer.rows]),
             one_d=one_d.cpu().numpy(), one_five=one_five.cpu().numpy(),
             whole=whole.cpu().numpy())
    dist.barrier()
    dist.destroy_process_group()


def _run(ranks, backend, tmp_path, matrix):
    import scipy.sparse as sp

    k = 7
    pkg_path = str(tmp_path / "a.spp")
    spperm.compile(matrix, shards=ranks, output=pkg_path)
    a_path = str(tmp_path / "a.npz")
    sp.save_npz(a_path, matrix)
    init = "file://" + str(tmp_path / "rendezvous")
    torch.multiprocessing.spawn(
        _rank, args=(ranks, backend, init, pkg_path, a_path, k,
                     str(tmp_path)), nprocs=ranks, join=True)
    b = np.random.default_rng(3).standard_normal(
        (matrix.shape[1], k)).astype(np.float32)
    want = reference(matrix, b)
    covered = 0
    for rank in range(ranks):
        got = np.load(tmp_path / f"rank{rank}.npz")
        begin, end, rows = got["rows"]
        assert begin == covered and rows == matrix.shape[0]
        covered = end
        assert normwise_error(got["one_d"], want[begin:end]) <= 1e-5
        assert normwise_error(got["one_five"], want[begin:end]) <= 1e-5
        assert normwise_error(got["whole"], want) <= 1e-5
    assert covered == matrix.shape[0]


@pytest.mark.parametrize("ranks", [1, 3])
def test_gloo_on_the_cpu(tmp_path, ranks):
    if not dist.is_available() or not dist.is_gloo_available():
        pytest.skip("torch has no gloo backend")
    _run(ranks, "gloo", tmp_path, random_csr(230, 170, 0.04, 11, skew=True))


def test_nccl_on_several_gpus(tmp_path, torch_cuda):
    if torch_cuda.cuda.device_count() < 2:
        pytest.skip(f"{torch_cuda.cuda.device_count()} CUDA device(s); "
                    "this test needs 2")
    if not dist.is_nccl_available():
        pytest.skip("torch has no NCCL backend")
    _run(2, "nccl", tmp_path, random_csr(400, 300, 0.03, 12, skew=True))


def test_load_needs_torch_distributed(tmp_path):
    import spperm.distributed as sd

    if dist.is_initialized():
        pytest.skip("a process group is already initialized")
    with pytest.raises(spperm.InvalidArgumentError,
                       match="needs torch.distributed initialized"):
        sd.load(tmp_path / "any.spp")
