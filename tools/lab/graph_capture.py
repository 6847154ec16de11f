"""Which CUDA-graph capture mode admits a spperm call (diagnosis for
docs/Python.md's CUDA-graph note): warm up on a side stream, then capture
one call in each mode and replay it."""
import os
import sys

import torch

import spperm

pkg = spperm.load(sys.argv[1])
layer = pkg[0]
b = torch.randn(layer.cols, 64, device="cuda")
side = torch.cuda.Stream()
side.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(side):
    c0 = layer(b)
torch.cuda.current_stream().wait_stream(side)
torch.cuda.synchronize()
for mode in ("relaxed", "thread_local", "global"):
    graph = torch.cuda.CUDAGraph()
    try:
        with torch.cuda.graph(graph, capture_error_mode=mode):
            c = layer(b)
        graph.replay()
        torch.cuda.synchronize()
        print(mode, "ok", float((c - c0).abs().max()))
    except Exception as e:  # noqa: BLE001
        print(mode, "failed:", str(e).splitlines()[0][:200])
        torch.cuda.synchronize()
