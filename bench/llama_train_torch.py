"""PyTorch side of train-bench.ts: the same GRPO step (forward, loss, backward, clip, AdamW) on
the same batch shape, with reference_train_torch.py's forward, timed per wall-clock and CPU second.

  python3 llama_train_torch.py DIR BATCH LEN STEPS THREADS [lora_rank]  -> one JSON line
"""

import json
import os
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib', 'policy', 'hf'))
from reference_torch import load  # noqa: E402
from reference_train_torch import SUB, forward, loss_of  # noqa: E402


def main():
    d, B, T, steps, threads = sys.argv[1], *map(int, sys.argv[2:6])
    rank = int(sys.argv[6]) if len(sys.argv) > 6 else 0
    torch.set_num_threads(threads)
    cfg = json.load(open(os.path.join(d, "config.json")))
    W = load(d)
    g = torch.Generator().manual_seed(1)
    V = cfg["vocab_size"]
    tokens = torch.randint(3, V, (B, T), generator=g)
    tokens[:, 0] = 1
    targets = torch.roll(tokens, -1, 1)
    mask = torch.zeros(B, T)
    mask[:, 15 : T - 1] = 1
    batch = {
        "targets": targets.tolist(),
        "weights": (mask / mask.sum()).tolist(),
        "advantages": (torch.rand(B, 1, generator=g) - 0.5).expand(B, T).tolist(),
    }
    lora = None
    if rank:
        lora = {"rank": rank, "alpha": 2 * rank, "targets": list(SUB), "W": {}}
        for name, w in list(W.items()):
            parts = name.split(".")
            if len(parts) == 6 and parts[4] in SUB and parts[5] == "weight":
                pre = f"base_model.model.model.layers.{parts[2]}.{SUB[parts[4]]}.{parts[4]}"
                lora["W"][pre + ".lora_A.weight"] = torch.randn(rank, w.shape[1], generator=g) * 0.01
                lora["W"][pre + ".lora_B.weight"] = torch.zeros(w.shape[0], rank)
        params = list(lora["W"].values())
    else:
        params = list(W.values())
    for p in params:
        p.requires_grad_(True)
    with torch.no_grad():
        old = torch.log_softmax(forward(cfg, W, lora, tokens), -1).gather(-1, targets[..., None])[..., 0]
    batch["old_logprobs"] = old.tolist()
    loss_cfg = {"kind": "grpo", "clipLow": 0.2, "clipHigh": 0.28, "clipRatioC": 3, "temperature": 1}
    opt = torch.optim.AdamW(params, lr=1e-4, betas=(0.9, 0.95), eps=1e-8, weight_decay=0.1)

    def step():
        opt.zero_grad()
        loss, _ = loss_of(forward(cfg, W, lora, tokens), batch, loss_cfg)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()

    step()
    w0, c0 = time.perf_counter(), time.process_time()
    for _ in range(steps):
        step()
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    print(json.dumps({"tokensPerSecond": B * T * steps / wall, "tokensPerCpuSecond": B * T * steps / cpu}))


if __name__ == "__main__":
    main()
