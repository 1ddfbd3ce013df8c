"""PyTorch CPU peer for `npm run bench -- learner`.

The same architecture as lib/policy/model.ts (learned positions, pre-LN blocks, causal
MHA, GELU MLP, tied head, value head), the same AdamW + global grad-norm clip step on the
same batch shape. Reads one JSON config argument, prints one JSON result line.
"""
import json
import math
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, d, h, mlp):
        super().__init__()
        self.h = h
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.o = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.w1 = nn.Linear(d, mlp)
        self.w2 = nn.Linear(mlp, d)

    def forward(self, x, mask):
        B, T, D = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(B, T, 3 * self.h, D // self.h).transpose(1, 2).split(self.h, dim=1)
        # Explicit softmax attention (as the ONNX graph computes it), not a fused kernel.
        s = (q @ k.transpose(-1, -2)) / math.sqrt(D // self.h) + mask
        a = (s.softmax(-1) @ v).transpose(1, 2).reshape(B, T, D)
        x = x + self.o(a)
        return x + self.w2(F.gelu(self.w1(self.ln2(x))))


class Model(nn.Module):
    def __init__(self, c):
        super().__init__()
        d = c["dModel"]
        self.wte = nn.Embedding(c["vocabSize"], d)
        self.wpe = nn.Embedding(c["maxSeqLen"], d)
        self.blocks = nn.ModuleList(Block(d, c["nHeads"], c["dMlp"]) for _ in range(c["nLayers"]))
        self.lnf = nn.LayerNorm(d)
        self.value = nn.Linear(d, 1)

    def forward(self, tokens, mask):
        T = tokens.shape[1]
        x = self.wte(tokens) + self.wpe(torch.arange(T))
        for b in self.blocks:
            x = b(x, mask)
        h = self.lnf(x)
        return h @ self.wte.weight.t(), self.value(h).squeeze(-1)


def matmul_gflops(n, reps):
    """Best of `reps` n x n x n float32 MatMuls (the peak the machine gives PyTorch's BLAS)."""
    a = torch.randn(n, n)
    b = torch.randn(n, n)
    a @ b
    best = float("inf")
    for _ in range(reps):
        t = time.perf_counter()
        a @ b
        best = min(best, time.perf_counter() - t)
    return 2 * n**3 / best / 1e9


def main():
    cfg = json.loads(sys.argv[1])
    torch.manual_seed(0)
    torch.set_num_threads(cfg["threads"])
    c = cfg["model"]
    B, T = cfg["batch"], cfg["seqLen"]
    model = Model(c)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, betas=(0.9, 0.95), weight_decay=0.1)
    tokens = torch.randint(0, c["vocabSize"], (B, T + 1))
    mask = torch.full((T, T), -1e9).triu(1)

    def step():
        logits, _ = model(tokens[:, :-1], mask)
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tokens[:, 1:].reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        return loss.item()

    for _ in range(cfg["warmup"]):
        step()
    times = []
    for _ in range(cfg["steps"]):
        t = time.perf_counter()
        step()
        times.append(time.perf_counter() - t)
    median = sorted(times)[len(times) // 2]
    print(json.dumps({
        "torch": torch.__version__,
        "threads": torch.get_num_threads(),
        "tokensPerSecond": B * T / median,
        "secondsPerStep": median,
        "stepSeconds": times,
        "matmulGflops": matmul_gflops(cfg["matmulN"], 10) if cfg.get("matmulN") else None,
        "parameters": sum(p.numel() for p in model.parameters()),
    }))


if __name__ == "__main__":
    main()
