"""A CUDA program provesim did not write, for `provesim record` (docs/record.md): matrix
products and FFTs through PyTorch, with a host-side pause after each step so the GPU is
busy for part of the time only. Prints {"steps_per_s": ...} over SECONDS of work.
    python3 torch_work.py [SECONDS] [PAUSE_MS]"""
import json
import sys
import time

import torch

seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 8.0
pause = float(sys.argv[2]) / 1000 if len(sys.argv) > 2 else 0.004
dev = torch.device("cuda")
a = torch.randn(4096, 4096, device=dev, dtype=torch.bfloat16)
b = torch.randn(4096, 4096, device=dev, dtype=torch.bfloat16)
x = torch.randn(2048, 2048, device=dev, dtype=torch.complex64)
for _ in range(3):  # warm-up: cuBLAS and cuFFT plans
    (a @ b).sum()
    torch.fft.fft2(x)
torch.cuda.synchronize()
steps, t0 = 0, time.perf_counter()
while time.perf_counter() - t0 < seconds:
    torch.cuda.nvtx.range_push("step")  # an NVTX range per step, for `record` to find
    for _ in range(8):
        c = a @ b
    y = torch.fft.ifft2(torch.fft.fft2(x))
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_pop()
    time.sleep(pause)
    steps += 1
dt = time.perf_counter() - t0
print(json.dumps({"steps_per_s": steps / dt, "steps": steps, "seconds": dt}))
