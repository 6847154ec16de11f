"""Which step of a spperm call invalidates a CUDA-graph capture (diagnosis
for docs/Python.md's CUDA-graph note): warm up on a side stream, then
capture one call, printing the capture status (cuStreamIsCapturing: 0 none,
1 active, 2 invalidated) after each step."""
import ctypes
import sys

import torch

import spperm

cuda = ctypes.CDLL("libcuda.so.1")


def status(label):
    s = ctypes.c_int(-1)
    stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
    r = cuda.cuStreamIsCapturing(stream, ctypes.byref(s))
    print(f"  {label}: capture status {s.value} (r={r})", flush=True)


pkg = spperm.load(sys.argv[1])
layer = pkg[0]
runtime = pkg._runtime("gpu")
b = torch.randn(layer.cols, 64, device="cuda")
side = torch.cuda.Stream()
side.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(side):
    c0 = layer(b)
torch.cuda.current_stream().wait_stream(side)
torch.cuda.synchronize()
for mode in ("relaxed", "global"):
    print(mode)
    graph = torch.cuda.CUDAGraph()
    try:
        with torch.cuda.graph(graph, capture_error_mode=mode):
            status("capture begun")
            c = torch.empty((layer.rows, 64), device="cuda")
            status("after torch.empty")
            c.zero_()
            status("after a torch kernel")
            raw = torch.cuda.current_stream().cuda_stream
            try:
                runtime.spmm_addresses(layer.index, b.data_ptr(), 64,
                                       c.data_ptr(), raw)
            except Exception as e:  # noqa: BLE001
                print("  spmm_addresses raised:", type(e).__name__, e)
            status("after spmm_addresses")
        graph.replay()
        torch.cuda.synchronize()
        print(mode, "ok", float((c - c0).abs().max()))
    except Exception as e:  # noqa: BLE001
        print(mode, "failed:", str(e).splitlines()[0][:200])
        torch.cuda.synchronize()
