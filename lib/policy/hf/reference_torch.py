"""Independent PyTorch reference for the Hugging Face decoder tests (Debian's python3-torch).

Implements transformers' forward for LlamaForCausalLM, Qwen2ForCausalLM, Qwen3ForCausalLM and
MistralForCausalLM in plain torch (no transformers package), reads and writes safetensors
itself, and makes tiny random checkpoints. Reads one JSON request on stdin, writes JSON:

  {"make": [{"dir", "config", "dtype": "F32"|"F16"|"BF16", "shards": n, "seed"}],
   "runs": [{"dir", "logits": [[ids]], "greedy": {"prompts": [[ids]], "new": n, "eos": [ids]}}]}
  -> {"runs": [{"logits": [[flat float32 logits]], "greedy": [{"tokens", "logprobs"}]}]}

Greedy decoding recomputes the whole sequence each step (no cache, no padding), so it checks
the ONNX side's KV cache and left padding as well as its forward.
"""

import json
import math
import os
import struct
import sys

import numpy as np
import torch
import torch.nn.functional as F

torch.set_num_threads(1)

DTYPES = {"F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16}


def write_safetensors(path, tensors):
    header = {"__metadata__": {"format": "pt"}}
    blobs, off = [], 0
    for name, t in tensors.items():
        code = {torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16"}[t.dtype]
        raw = t.contiguous().view(torch.int32 if t.element_size() == 4 else torch.int16).numpy().tobytes()
        header[name] = {"dtype": code, "shape": list(t.shape), "data_offsets": [off, off + len(raw)]}
        blobs.append(raw)
        off += len(raw)
    h = json.dumps(header).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8 : 8 + n])
    out = {}
    for name, e in header.items():
        if name == "__metadata__":
            continue
        s, t = e["data_offsets"]
        raw = data[8 + n + s : 8 + n + t]
        if e["dtype"] == "F32":
            x = torch.from_numpy(np.frombuffer(raw, dtype=np.float32).copy())
        elif e["dtype"] == "F16":
            x = torch.from_numpy(np.frombuffer(raw, dtype=np.float16).copy()).float()
        elif e["dtype"] == "BF16":
            x = torch.from_numpy(np.frombuffer(raw, dtype=np.int16).copy()).view(torch.bfloat16).float()
        else:
            raise ValueError(e["dtype"])
        out[name] = x.reshape(e["shape"])
    return out


def load(d):
    idx = os.path.join(d, "model.safetensors.index.json")
    files = sorted(set(json.load(open(idx))["weight_map"].values())) if os.path.exists(idx) else ["model.safetensors"]
    W = {}
    for f in files:
        W.update(read_safetensors(os.path.join(d, f)))
    return W


def dims(cfg):
    d = cfg["hidden_size"]
    H = cfg["num_attention_heads"]
    KV = cfg.get("num_key_value_heads") or H
    Dh = cfg.get("head_dim") or d // H
    return d, H, KV, Dh


def make(spec):
    cfg, d_ = spec["config"], spec["dir"]
    arch = cfg["architectures"][0]
    d, H, KV, Dh = dims(cfg)
    V, I = cfg["vocab_size"], cfg["intermediate_size"]
    g = torch.Generator().manual_seed(spec["seed"])

    def r(*shape, std=0.2, mean=0.0):
        return torch.randn(*shape, generator=g) * std + mean

    attn_bias = cfg.get("attention_bias", False)
    qkv_bias = arch == "Qwen2ForCausalLM" or (arch in ("LlamaForCausalLM", "Qwen3ForCausalLM") and attn_bias)
    o_bias = arch in ("LlamaForCausalLM", "Qwen3ForCausalLM") and attn_bias
    mlp_bias = arch == "LlamaForCausalLM" and cfg.get("mlp_bias", False)
    W = {"model.embed_tokens.weight": r(V, d, std=1.0)}

    def lin(name, out, inp, bias):
        W[name + ".weight"] = r(out, inp, std=1.0 / math.sqrt(inp))
        if bias:
            W[name + ".bias"] = r(out, std=0.1)

    for l in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{l}."
        W[p + "input_layernorm.weight"] = r(d, std=0.1, mean=1.0)
        lin(p + "self_attn.q_proj", H * Dh, d, qkv_bias)
        lin(p + "self_attn.k_proj", KV * Dh, d, qkv_bias)
        lin(p + "self_attn.v_proj", KV * Dh, d, qkv_bias)
        lin(p + "self_attn.o_proj", d, H * Dh, o_bias)
        if arch == "Qwen3ForCausalLM":
            W[p + "self_attn.q_norm.weight"] = r(Dh, std=0.1, mean=1.0)
            W[p + "self_attn.k_norm.weight"] = r(Dh, std=0.1, mean=1.0)
        W[p + "post_attention_layernorm.weight"] = r(d, std=0.1, mean=1.0)
        lin(p + "mlp.gate_proj", I, d, mlp_bias)
        lin(p + "mlp.up_proj", I, d, mlp_bias)
        lin(p + "mlp.down_proj", d, I, mlp_bias)
    W["model.norm.weight"] = r(d, std=0.1, mean=1.0)
    if not cfg.get("tie_word_embeddings", False):
        W["lm_head.weight"] = r(V, d, std=1.0 / math.sqrt(d))
    W = {k: v.to(DTYPES[spec["dtype"]]) for k, v in W.items()}
    os.makedirs(d_, exist_ok=True)
    n = spec.get("shards", 1)
    if n == 1:
        write_safetensors(os.path.join(d_, "model.safetensors"), W)
    else:
        names = list(W)
        weight_map = {}
        for i in range(n):
            fname = f"model-{i + 1:05d}-of-{n:05d}.safetensors"
            part = {k: W[k] for k in names[i::n]}
            write_safetensors(os.path.join(d_, fname), part)
            weight_map.update({k: fname for k in part})
        json.dump({"metadata": {}, "weight_map": weight_map}, open(os.path.join(d_, "model.safetensors.index.json"), "w"))
    json.dump(cfg, open(os.path.join(d_, "config.json"), "w"), indent=1)


def inv_freq(cfg):
    _, _, _, dim = dims(cfg)
    base = cfg.get("rope_theta", 10000.0)
    inv = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))
    rs = cfg.get("rope_scaling")
    if rs:
        t = rs.get("rope_type", rs.get("type"))
        if t == "linear":
            inv = inv / rs["factor"]
        elif t == "llama3":
            factor, lo, hi = rs["factor"], rs["low_freq_factor"], rs["high_freq_factor"]
            old = rs["original_max_position_embeddings"]
            low_wl, high_wl = old / lo, old / hi
            wavelen = 2 * math.pi / inv
            inv_l = torch.where(wavelen > low_wl, inv / factor, inv)
            smooth = (old / wavelen - lo) / (hi - lo)
            smoothed = (1 - smooth) * inv_l / factor + smooth * inv_l
            medium = ~(wavelen < high_wl) * ~(wavelen > low_wl)
            inv = torch.where(medium, smoothed, inv_l)
        elif t != "default":
            raise ValueError(t)
    return inv


def rms(x, w, eps):
    var = x.pow(2).mean(-1, keepdim=True)
    return w * (x * torch.rsqrt(var + eps))


def rotate_half(x):
    h = x.shape[-1] // 2
    return torch.cat((-x[..., h:], x[..., :h]), dim=-1)


@torch.no_grad()
def forward(cfg, W, ids):
    arch = cfg["architectures"][0]
    d, H, KV, Dh = dims(cfg)
    eps = cfg.get("rms_norm_eps", 1e-6)
    S = len(ids)

    def lin(x, name):
        y = x @ W[name + ".weight"].T
        b = W.get(name + ".bias")
        return y + b if b is not None else y

    x = W["model.embed_tokens.weight"][torch.tensor(ids)]
    freqs = torch.arange(S).float()[:, None] * inv_freq(cfg)[None, :]
    emb = torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos(), emb.sin()
    mask = torch.full((S, S), torch.finfo(torch.float32).min).triu(1)
    for l in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{l}."
        h = rms(x, W[p + "input_layernorm.weight"], eps)
        q = lin(h, p + "self_attn.q_proj").view(S, H, Dh)
        k = lin(h, p + "self_attn.k_proj").view(S, KV, Dh)
        v = lin(h, p + "self_attn.v_proj").view(S, KV, Dh)
        if arch == "Qwen3ForCausalLM":
            q = rms(q, W[p + "self_attn.q_norm.weight"], eps)
            k = rms(k, W[p + "self_attn.k_norm.weight"], eps)
        q, k, v = q.transpose(0, 1), k.transpose(0, 1), v.transpose(0, 1)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        k = k.repeat_interleave(H // KV, dim=0)
        v = v.repeat_interleave(H // KV, dim=0)
        a = torch.softmax((q @ k.transpose(1, 2)) * Dh**-0.5 + mask, dim=-1, dtype=torch.float32)
        x = x + lin((a @ v).transpose(0, 1).reshape(S, H * Dh), p + "self_attn.o_proj")
        h = rms(x, W[p + "post_attention_layernorm.weight"], eps)
        x = x + lin(F.silu(lin(h, p + "mlp.gate_proj")) * lin(h, p + "mlp.up_proj"), p + "mlp.down_proj")
    x = rms(x, W["model.norm.weight"], eps)
    head = W["model.embed_tokens.weight"] if cfg.get("tie_word_embeddings", False) else W["lm_head.weight"]
    return x @ head.T


def greedy(cfg, W, prompt, new, eos):
    seq, tokens, logprobs = list(prompt), [], []
    while len(tokens) < new and not (tokens and tokens[-1] in eos):
        lp = torch.log_softmax(forward(cfg, W, seq)[-1], dim=-1)
        t = int(torch.argmax(lp))
        tokens.append(t)
        logprobs.append(float(lp[t]))
        seq.append(t)
    return {"tokens": tokens, "logprobs": logprobs}


def main():
    req = json.load(sys.stdin)
    for spec in req.get("make", []):
        make(spec)
    out = []
    for run in req.get("runs", []):
        cfg = json.load(open(os.path.join(run["dir"], "config.json")))
        W = load(run["dir"])
        res = {"logits": [forward(cfg, W, ids).flatten().tolist() for ids in run.get("logits", [])]}
        if "greedy" in run:
            gr = run["greedy"]
            res["greedy"] = [greedy(cfg, W, p, gr["new"], gr.get("eos", [])) for p in gr["prompts"]]
        out.append(res)
    json.dump({"runs": out}, sys.stdout)


if __name__ == "__main__":
    main()
