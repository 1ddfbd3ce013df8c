const { Stats } = require('./stats');

class LruCache {
  constructor({ max, ttlMs = Infinity, now = Date.now } = {}) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError('max must be a positive integer');
    this.max = max;
    this.ttlMs = ttlMs;
    this.now = now;
    this.map = new Map(); // key -> { value, at }; Map order is recency order
    this.stats = new Stats();
  }

  get(key) {
    const entry = this.map.get(key);
    if (!entry) {
      this.stats.miss();
      return undefined;
    }
    this.map.delete(key);
    this.map.set(key, entry);
    this.stats.hit();
    return entry.value;
  }

  has(key) {
    return this.map.has(key);
  }

  set(key, value) {
    if (this.map.size >= this.max) {
      const oldest = this.map.keys().next().value;
      this.map.delete(oldest);
      this.stats.evict();
    }
    this.map.set(key, { value, at: this.now() });
    return this;
  }

  get size() {
    return this.map.size;
  }
}

module.exports = { LruCache };
