"""Independent checks of Crucible's exports with PyTorch (export.test.ts runs this).

Reads a JSON request on stdin, prints JSON results on stdout:
  {"adapter": DIR}                      -> adapter_config.json and every tensor (name, dtype, shape, values)
  {"merge": {"base": DIR, "adapter": DIR, "merged": DIR}}
                                        -> PEFT's merge W + B @ A * (lora_alpha / r) computed here from the
                                           base and the adapter, compared with the merged export
  {"rounding": {"file": F}}           -> torch's own float32 -> float16 / bfloat16 conversion of tensor "f32"
                                           in F compared bit for bit with tensors "f16" and "bf16" in F
The safetensors python package is not installed on Debian, so files are parsed here (the format
is an 8-byte header length, a JSON header, then raw little-endian tensor bytes).
"""
import json
import os
import struct
import sys

import numpy as np
import torch


def read_safetensors(path, raw_bits=False):
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
        dt = e["dtype"]
        if raw_bits and dt in ("F16", "BF16"):
            x = torch.from_numpy(np.frombuffer(raw, dtype=np.int16).copy())
        elif dt == "F32":
            x = torch.from_numpy(np.frombuffer(raw, dtype=np.float32).copy())
        elif dt == "F16":
            x = torch.from_numpy(np.frombuffer(raw, dtype=np.float16).copy()).float()
        elif dt == "BF16":
            x = torch.from_numpy(np.frombuffer(raw, dtype=np.int16).copy()).view(torch.bfloat16).float()
        else:
            raise ValueError(f"{path}: {name} has dtype {dt}")
        out[name] = (dt, x.reshape(e["shape"]))
    return out


def adapter(d):
    cfg = json.load(open(os.path.join(d, "adapter_config.json")))
    tensors = read_safetensors(os.path.join(d, "adapter_model.safetensors"))
    return {
        "config": cfg,
        "tensors": {k: {"dtype": dt, "shape": list(x.shape), "values": x.flatten().tolist()} for k, (dt, x) in tensors.items()},
    }


def merge(req):
    cfg = json.load(open(os.path.join(req["adapter"], "adapter_config.json")))
    lora = {k: x for k, (_, x) in read_safetensors(os.path.join(req["adapter"], "adapter_model.safetensors")).items()}
    base = {k: x for k, (_, x) in read_safetensors(os.path.join(req["base"], "model.safetensors")).items()}
    merged = {k: x for k, (_, x) in read_safetensors(os.path.join(req["merged"], "model.safetensors")).items()}
    scale = cfg["lora_alpha"] / cfg["r"]
    adapted = {}
    prefix = "base_model.model."
    for k, a in lora.items():
        if not k.endswith(".lora_A.weight"):
            continue
        b = lora[k.replace(".lora_A.weight", ".lora_B.weight")]
        w = k[len(prefix) :].replace(".lora_A.weight", ".weight")
        adapted[w] = base[w] + (b @ a) * scale
    diffs = {}
    for w, x in merged.items():
        want = adapted.get(w, base.get(w))
        diffs[w] = float((x - want).abs().max()) if want is not None else None
    return {"adapted": sorted(adapted), "maxAbsDiff": diffs, "missingInMerged": sorted(set(base) - set(merged))}


def rounding(req):
    t = read_safetensors(req["file"], raw_bits=True)
    v = read_safetensors(req["file"])["f32"][1]
    want16 = v.to(torch.float16).view(torch.int16)
    wantbf = v.to(torch.bfloat16).view(torch.int16)
    got16 = t["f16"][1]
    gotbf = t["bf16"][1]
    # NaN payloads may differ; compare NaN-ness there and bits elsewhere
    nan = torch.isnan(v)
    return {
        "f16Mismatches": int(((want16 != got16) & ~nan).sum()) + int((torch.isnan(got16.view(torch.float16)) != nan).sum()),
        "bf16Mismatches": int(((wantbf != gotbf) & ~nan).sum()) + int((torch.isnan(gotbf.view(torch.bfloat16)) != nan).sum()),
        "count": int(v.numel()),
    }


def main():
    req = json.load(sys.stdin)
    out = {}
    if "adapter" in req:
        out["adapter"] = adapter(req["adapter"])
    if "merge" in req:
        out["merge"] = merge(req["merge"])
    if "rounding" in req:
        out["rounding"] = rounding(req["rounding"])
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
