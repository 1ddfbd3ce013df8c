"""PyTorch side of llama-bench.ts's sampling figures: batched greedy decoding with a KV cache.

The forward is reference_torch.py's (same weights reader, RoPE, RMSNorm, GQA), restructured to
take a batch and a per-layer K/V cache: one prefill over the prompts, then one single-token step
per new token, each ending in log_softmax over the vocabulary and argmax, as ours does. Prompts
all have the same length (no padding); a row that emits an EOS stops counting, and decoding
stops when every row has, like sample.ts.

  python3 llama_sample_torch.py '{"dir", "batches": [1, 8], "prompts": [[ids]], "new": N,
                                  "reps": R, "threads": T, "eos": [ids]}'
  -> {"runs": [{"batch", "seconds": [..], "cpuSeconds": [..], "tokens": n, "firstRow": [ids]}],
      "peakRssMiB": x}
"""

import json
import os
import resource
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib', 'policy', 'hf'))
from reference_torch import dims, inv_freq, load, rms, rotate_half  # noqa: E402


@torch.no_grad()
def step(cfg, W, inv, ids, pos0, cache):
    """Logprobs of the last position of ids [B, S] at positions pos0.., extending cache."""
    d, H, KV, Dh = dims(cfg)
    eps = cfg.get("rms_norm_eps", 1e-6)
    qk_norm = cfg["architectures"][0] == "Qwen3ForCausalLM"
    B, S = ids.shape

    def lin(x, name):
        y = x @ W[name + ".weight"].T
        b = W.get(name + ".bias")
        return y + b if b is not None else y

    x = W["model.embed_tokens.weight"][ids]
    freqs = torch.arange(pos0, pos0 + S).float()[:, None] * inv[None, :]
    emb = torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos(), emb.sin()
    total = pos0 + S
    mask = torch.full((S, total), torch.finfo(torch.float32).min).triu(pos0 + 1) if S > 1 else None
    for l in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{l}."
        h = rms(x, W[p + "input_layernorm.weight"], eps)
        q = lin(h, p + "self_attn.q_proj").view(B, S, H, Dh)
        k = lin(h, p + "self_attn.k_proj").view(B, S, KV, Dh)
        v = lin(h, p + "self_attn.v_proj").view(B, S, KV, Dh)
        if qk_norm:
            q = rms(q, W[p + "self_attn.q_norm.weight"], eps)
            k = rms(k, W[p + "self_attn.k_norm.weight"], eps)
        q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        if l in cache:
            k = torch.cat((cache[l][0], k), dim=2)
            v = torch.cat((cache[l][1], v), dim=2)
        cache[l] = (k, v)
        k = k.repeat_interleave(H // KV, dim=1)
        v = v.repeat_interleave(H // KV, dim=1)
        s = (q @ k.transpose(2, 3)) * Dh**-0.5
        if mask is not None:
            s = s + mask
        a = torch.softmax(s, dim=-1, dtype=torch.float32)
        x = x + lin((a @ v).transpose(1, 2).reshape(B, S, H * Dh), p + "self_attn.o_proj")
        h = rms(x, W[p + "post_attention_layernorm.weight"], eps)
        x = x + lin(F.silu(lin(h, p + "mlp.gate_proj")) * lin(h, p + "mlp.up_proj"), p + "mlp.down_proj")
    x = rms(x[:, -1], W["model.norm.weight"], eps)
    head = W["model.embed_tokens.weight"] if cfg.get("tie_word_embeddings", False) else W["lm_head.weight"]
    return torch.log_softmax(x @ head.T, dim=-1)


def generate(cfg, W, inv, prompts, new, eos):
    ids = torch.tensor(prompts)
    B, P = ids.shape
    cache = {}
    lp = step(cfg, W, inv, ids, 0, cache)
    out = [[] for _ in range(B)]
    done = [False] * B
    for i in range(new):
        nxt = torch.argmax(lp, dim=-1)
        for b in range(B):
            if not done[b]:
                t = int(nxt[b])
                out[b].append(t)
                done[b] = t in eos
        if all(done) or i == new - 1:
            break
        lp = step(cfg, W, inv, nxt[:, None], P + i, cache)
    return out


def main():
    req = json.loads(sys.argv[1])
    torch.set_num_threads(req["threads"])
    cfg = json.load(open(os.path.join(req["dir"], "config.json")))
    W = load(req["dir"])
    inv = inv_freq(cfg)
    runs = []
    for B in req["batches"]:
        prompts = req["prompts"][:B]
        generate(cfg, W, inv, prompts, req["new"], req["eos"])  # warm-up
        seconds, cpu, tokens, first = [], [], 0, []
        for _ in range(req["reps"]):
            w0, c0 = time.perf_counter(), time.process_time()
            out = generate(cfg, W, inv, prompts, req["new"], req["eos"])
            seconds.append(time.perf_counter() - w0)
            cpu.append(time.process_time() - c0)
            tokens, first = sum(len(r) for r in out), out[0]
        runs.append({"batch": B, "seconds": seconds, "cpuSeconds": cpu, "tokens": tokens, "firstRow": first})
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"runs": runs, "peakRssMiB": peak}))


if __name__ == "__main__":
    main()
