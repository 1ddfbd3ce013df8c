// async-exit-hook ships no types; we only use unhookEvent (see db/embedded.ts).
declare module 'async-exit-hook' {
  const hook: { (fn: (done?: () => void) => void): void; unhookEvent(event: string): void };
  export default hook;
}
