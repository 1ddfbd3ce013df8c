import { RESOURCE_KEYS, type Resources } from '@/core/resources';

// Small vector helpers over the five resources. Hot paths mutate in place to avoid garbage.

const EPS = 1e-9;

export function zero(): Resources {
  return { cpu: 0, memoryMb: 0, gpu: 0, gpuMemoryMb: 0, diskMb: 0 };
}

export function copy(r: Resources): Resources {
  return { cpu: r.cpu, memoryMb: r.memoryMb, gpu: r.gpu, gpuMemoryMb: r.gpuMemoryMb, diskMb: r.diskMb };
}

/** Fill unset resources with `fill` (Infinity for "unlimited" quotas). */
export function complete(r: Partial<Resources> | undefined, fill: number): Resources {
  return {
    cpu: r?.cpu ?? fill,
    memoryMb: r?.memoryMb ?? fill,
    gpu: r?.gpu ?? fill,
    gpuMemoryMb: r?.gpuMemoryMb ?? fill,
    diskMb: r?.diskMb ?? fill,
  };
}

export function addInto(into: Resources, r: Resources, sign = 1): void {
  into.cpu += sign * r.cpu;
  into.memoryMb += sign * r.memoryMb;
  into.gpu += sign * r.gpu;
  into.gpuMemoryMb += sign * r.gpuMemoryMb;
  into.diskMb += sign * r.diskMb;
}

export function scale(r: Resources, f: number): Resources {
  return { cpu: r.cpu * f, memoryMb: r.memoryMb * f, gpu: r.gpu * f, gpuMemoryMb: r.gpuMemoryMb * f, diskMb: r.diskMb * f };
}

/** `req` fits in `free` on every resource. */
export function fits(req: Resources, free: Resources): boolean {
  return (
    req.cpu <= free.cpu + EPS &&
    req.memoryMb <= free.memoryMb + EPS &&
    req.gpu <= free.gpu + EPS &&
    req.gpuMemoryMb <= free.gpuMemoryMb + EPS &&
    req.diskMb <= free.diskMb + EPS
  );
}

/** `used + req <= limit` on every resource. */
export function fitsUnder(used: Resources, req: Resources, limit: Resources): boolean {
  return (
    used.cpu + req.cpu <= limit.cpu + EPS &&
    used.memoryMb + req.memoryMb <= limit.memoryMb + EPS &&
    used.gpu + req.gpu <= limit.gpu + EPS &&
    used.gpuMemoryMb + req.gpuMemoryMb <= limit.gpuMemoryMb + EPS &&
    used.diskMb + req.diskMb <= limit.diskMb + EPS
  );
}

/** Per resource, how much `used + req` exceeds `limit` (0 where it does not). */
export function excess(used: Resources, req: Resources, limit: Resources): Resources {
  const out = zero();
  for (const k of RESOURCE_KEYS) out[k] = Math.max(0, used[k] + req[k] - limit[k]);
  return out;
}

export function anyPositive(r: Resources): boolean {
  return r.cpu > EPS || r.memoryMb > EPS || r.gpu > EPS || r.gpuMemoryMb > EPS || r.diskMb > EPS;
}

/** True when `r` would lower some still-positive entry of `deficit`. */
export function reduces(r: Resources, deficit: Resources): boolean {
  for (const k of RESOURCE_KEYS) if (deficit[k] > EPS && r[k] > 0) return true;
  return false;
}

/** Dominant share: the largest fraction of `total` that `used` takes on any resource. */
export function dominantShare(used: Resources, total: Resources): number {
  let s = 0;
  for (const k of RESOURCE_KEYS) if (total[k] > 0) s = Math.max(s, used[k] / total[k]);
  return s;
}
