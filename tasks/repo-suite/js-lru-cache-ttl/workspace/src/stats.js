class Stats {
  constructor() {
    this.hits = 0;
    this.misses = 0;
    this.evictions = 0;
  }
  hit() {
    this.hits++;
  }
  miss() {
    this.misses++;
  }
  evict() {
    this.evictions++;
  }
}

module.exports = { Stats };
