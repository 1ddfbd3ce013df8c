/** A binary min-heap ordered by `less`; O(log n) push and pop. */
export class Heap<T> {
  private items: T[] = [];
  constructor(private readonly less: (a: T, b: T) => boolean) {}

  get size(): number {
    return this.items.length;
  }

  // Both sifts move a hole instead of swapping, holding the moving item in a local; the `!`s
  // read indices just checked against `a.length` (this is the scheduler's hottest loop).
  push(item: T): void {
    const a = this.items;
    let i = a.length;
    a.push(item);
    while (i > 0) {
      const p = (i - 1) >> 1;
      const parent = a[p]!;
      if (!this.less(item, parent)) break;
      a[i] = parent;
      i = p;
    }
    a[i] = item;
  }

  pop(): T | undefined {
    const a = this.items;
    if (a.length === 0) return undefined;
    const top = a[0];
    const last = a.pop()!;
    if (a.length > 0) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        let mv = last;
        if (l < a.length && this.less(a[l]!, mv)) {
          m = l;
          mv = a[l]!;
        }
        if (r < a.length && this.less(a[r]!, mv)) {
          m = r;
          mv = a[r]!;
        }
        if (m === i) break;
        a[i] = mv;
        i = m;
      }
      a[i] = last;
    }
    return top;
  }
}
