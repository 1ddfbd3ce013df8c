class Emitter {
  constructor() {
    this.listeners = new Map();
  }

  on(event, fn) {
    if (typeof fn !== 'function') throw new TypeError('listener must be a function');
    if (!this.listeners.has(event)) this.listeners.set(event, []);
    this.listeners.get(event).push(fn);
    return this;
  }

  once(event, fn) {
    const wrapper = (...args) => {
      this.off(event, wrapper);
      fn.apply(this, args);
    };
    return this.on(event, wrapper);
  }

  off(event, fn) {
    const list = this.listeners.get(event);
    if (!list) return this;
    const i = list.indexOf(fn);
    if (i !== -1) list.splice(i, 1);
    return this;
  }

  emit(event, ...args) {
    const list = this.listeners.get(event);
    if (!list || list.length === 0) return false;
    for (let i = 0; i < list.length; i++) list[i].apply(this, args);
    return true;
  }

  listenerCount(event) {
    return this.listeners.get(event)?.length ?? 0;
  }
}

module.exports = { Emitter };
