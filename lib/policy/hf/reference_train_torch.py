"""Independent PyTorch autograd reference for the Hugging Face training graphs (python3-torch).

Reuses reference_torch.py's checkpoint reader, RoPE frequencies and RMSNorm, and writes the
rest here in plain torch: a batched, differentiable forward of Llama/Qwen2/Qwen3/Mistral with
optional PEFT-style LoRA (y = x W^T + b + (alpha/r) * B(A(x))), the SFT and GRPO losses as
verl defines them (temperature, asymmetric clip, dual clip, k3 KL, entropy bonus), then
torch's own clip_grad_norm_ and torch.optim.AdamW. Reads a JSON list of cases on stdin:

  [{"dir", "lora": null | {"rank", "alpha", "targets": [...], "tensors": {peft name: flat}},
    "batch": {"tokens", "targets", "weights", "mask", "advantages", "old_logprobs", "ref_logprobs"?: [B][T]},
    "loss": {"kind": "sft"|"grpo", "clipLow", "clipHigh", "clipRatioC", "klCoef", "entropyCoef", "temperature"},
    "optim": {"lr", "beta1", "beta2", "eps", "weightDecay", "maxGradNorm", "warmupSteps", "totalSteps", "minLrRatio"},
    "step": bool, "half": null | "fp16" | "bf16", "loss_scale": 1}]
  -> [{"logprobs": [B*T], "loss", "grads": {name: flat}, "grad_norm", "lr", "updated": {name: flat}}]

Trainable tensors are every checkpoint weight (full fine-tuning) or only the LoRA factors.

With "half", every matrix product (projections, attention scores and context, the output
head) rounds its operands and its result through float16 or bfloat16 and
multiplies in float32 in between: mixed precision as half matrix units compute it, with
float32 weights; a LoRA target multiplies by its merged weight W + (alpha/r) B A. torch's
autograd through the casts rounds the gradients at the same points.
"loss_scale" multiplies the loss before backward and divides the gradients after (float16
loss scaling; a power of two changes nothing but which gradients underflow or overflow).
"""

import json
import math
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference_torch import dims, inv_freq, load, rms, rotate_half  # noqa: E402

torch.set_num_threads(1)

SUB = {"q_proj": "self_attn", "k_proj": "self_attn", "v_proj": "self_attn", "o_proj": "self_attn", "gate_proj": "mlp", "up_proj": "mlp", "down_proj": "mlp"}


HALF = {"fp16": torch.float16, "bf16": torch.bfloat16}


def forward(cfg, W, lora, tokens, half=None):
    """Logits [B, T, V] of right-padded rows (causal attention only, positions 0..T-1)."""
    arch = cfg["architectures"][0]
    d, H, KV, Dh = dims(cfg)
    eps = cfg.get("rms_norm_eps", 1e-6)
    B, T = tokens.shape
    dt = HALF.get(half)

    def rnd(x):
        return x if dt is None else x.to(dt).to(torch.float32)

    # An operand is rounded once however many products take it (the normed hidden state feeds
    # q, k and v), as the graphs do: its gradients are summed, then rounded.
    operands = {}

    def operand(x):
        if id(x) not in operands:
            operands[id(x)] = (x, rnd(x))
        return operands[id(x)][1]

    def mm(a, b, bias=None, scale=1.0):
        y = operand(a) @ operand(b)
        if scale != 1.0:
            y = y * scale
        if bias is not None:
            y = y + operand(bias)
        return rnd(y)

    def factors(name):
        """A LoRA target's (A, B, alpha / r), or None."""
        module = name.split(".")[-1]
        if lora is None or module not in lora["targets"]:
            return None
        pre = f"base_model.model.model.layers.{name.split('.')[2]}.{SUB[module]}.{module}"
        return lora["W"][pre + ".lora_A.weight"], lora["W"][pre + ".lora_B.weight"], lora["alpha"] / lora["rank"]

    def lin(x, name):
        w, bias, f = W[name + ".weight"], W.get(name + ".bias"), factors(name)
        if f is not None and dt is not None:
            # mixed precision: the product takes the merged weight (as the sampler does)
            A, Bm, s = f
            return mm(x, (w + (Bm @ A) * s).T, bias)
        y = mm(x, w.T, bias)
        if f is not None:
            A, Bm, s = f
            y = y + mm(mm(x, A.T), Bm.T, scale=s)
        return y

    x = W["model.embed_tokens.weight"][tokens]  # [B, T, d]
    freqs = torch.arange(T).float()[:, None] * inv_freq(cfg)[None, :]
    emb = torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos(), emb.sin()
    mask = torch.full((T, T), torch.finfo(torch.float32).min).triu(1)
    for l in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{l}."
        h = rms(x, W[p + "input_layernorm.weight"], eps)
        q = lin(h, p + "self_attn.q_proj").view(B, T, H, Dh)
        k = lin(h, p + "self_attn.k_proj").view(B, T, KV, Dh)
        v = lin(h, p + "self_attn.v_proj").view(B, T, KV, Dh)
        if arch == "Qwen3ForCausalLM":
            q = rms(q, W[p + "self_attn.q_norm.weight"], eps)
            k = rms(k, W[p + "self_attn.k_norm.weight"], eps)
        q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)  # [B, heads, T, Dh]
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        k = k.repeat_interleave(H // KV, dim=1)
        v = v.repeat_interleave(H // KV, dim=1)
        a = torch.softmax(mm(q, k.transpose(2, 3)) * Dh**-0.5 + mask, dim=-1)
        x = x + lin(mm(a, v).transpose(1, 2).reshape(B, T, H * Dh), p + "self_attn.o_proj")
        h = rms(x, W[p + "post_attention_layernorm.weight"], eps)
        x = x + lin(F.silu(lin(h, p + "mlp.gate_proj")) * lin(h, p + "mlp.up_proj"), p + "mlp.down_proj")
    x = rms(x, W["model.norm.weight"], eps)
    head = W["model.embed_tokens.weight"] if cfg.get("tie_word_embeddings", False) else W["lm_head.weight"]
    return mm(x, head.T)


def loss_of(logits, b, lc):
    """The per-step loss (a weighted token sum) and the per-token logprobs."""
    targets = torch.tensor(b["targets"])
    w = torch.tensor(b["weights"], dtype=torch.float32)
    if lc["kind"] != "sft":
        logits = logits / lc["temperature"]
    logp_all = torch.log_softmax(logits, dim=-1)
    logp = logp_all.gather(-1, targets[..., None])[..., 0]
    if lc["kind"] == "sft":
        return (-logp * w).sum(), logp
    adv = torch.tensor(b["advantages"], dtype=torch.float32)
    old = torch.tensor(b["old_logprobs"], dtype=torch.float32)
    ratio = torch.exp(torch.clamp(logp - old, -20, 20))
    pg1 = -adv * ratio
    pg2 = -adv * torch.clamp(ratio, 1 - lc["clipLow"], 1 + lc["clipHigh"])
    clipped = torch.maximum(pg1, pg2)
    pg = torch.where(adv < 0, torch.minimum(clipped, -adv * lc["clipRatioC"]), clipped)
    tok = pg
    if lc.get("klCoef", 0) > 0:
        r = torch.clamp(torch.tensor(b["ref_logprobs"], dtype=torch.float32) - logp, -20, 20)
        tok = tok + lc["klCoef"] * torch.clamp(torch.exp(r) - r - 1, -10, 10)
    if lc.get("entropyCoef", 0) > 0:
        entropy = -(logp_all.exp() * logp_all).sum(-1)
        tok = tok - lc["entropyCoef"] * entropy
    return (tok * w).sum(), logp


def scheduled_lr(o, t):
    warm = min(t / o["warmupSteps"], 1) if o["warmupSteps"] > 0 else 1
    progress = min(max((t - o["warmupSteps"]) / max(1, o["totalSteps"] - o["warmupSteps"]), 0), 1)
    cosine = (math.cos(math.pi * progress) + 1) / 2
    return warm * (cosine * (1 - o["minLrRatio"]) + o["minLrRatio"]) * o["lr"]


def run(case, cache):
    d = case["dir"]
    if d not in cache:
        cache[d] = (json.load(open(os.path.join(d, "config.json"))), load(d))
    cfg, W0 = cache[d]
    W = {k: v.clone() for k, v in W0.items()}
    lora = None
    if case.get("lora"):
        lc = case["lora"]
        lora = {"rank": lc["rank"], "alpha": lc["alpha"], "targets": lc["targets"], "W": {}}
        for name, flat in lc["tensors"].items():
            module = name.split(".")[-3]
            layer = int(name.split(".")[4])
            base = W[f"model.layers.{layer}.{SUB[module]}.{module}.weight"]
            shape = (lc["rank"], base.shape[1]) if ".lora_A." in name else (base.shape[0], lc["rank"])
            lora["W"][name] = torch.tensor(flat, dtype=torch.float32).reshape(shape)
        trainable = lora["W"]
    else:
        trainable = W
    for t in trainable.values():
        t.requires_grad_(True)
    b = case["batch"]
    logits = forward(cfg, W, lora, torch.tensor(b["tokens"]), case.get("half"))
    loss, logp = loss_of(logits, b, case["loss"])
    scale = case.get("loss_scale", 1.0)
    (loss * scale).backward()
    names = list(trainable)
    if scale != 1.0:
        for t in trainable.values():
            t.grad /= scale
    out = {
        "logprobs": logp.detach().flatten().tolist(),
        "loss": float(loss),
        "grads": {n: trainable[n].grad.flatten().tolist() for n in names},
    }
    if case.get("step"):
        o = case["optim"]
        params = [trainable[n] for n in names]
        out["grad_norm"] = float(torch.nn.utils.clip_grad_norm_(params, o["maxGradNorm"]))
        lr = scheduled_lr(o, 1)
        groups = [
            {"params": [p for p in params if p.dim() == 2], "weight_decay": o["weightDecay"]},
            {"params": [p for p in params if p.dim() != 2], "weight_decay": 0.0},
        ]
        opt = torch.optim.AdamW([g for g in groups if g["params"]], lr=lr, betas=(o["beta1"], o["beta2"]), eps=o["eps"])
        opt.step()
        out["lr"] = lr
        out["updated"] = {n: trainable[n].detach().flatten().tolist() for n in names}
    return out


def main():
    cases = json.load(sys.stdin)
    cache = {}
    json.dump([run(c, cache) for c in cases], sys.stdout)


if __name__ == "__main__":
    main()
