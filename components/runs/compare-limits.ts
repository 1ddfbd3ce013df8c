/** Mirrors server/runs/service COMPARE_MAX_RUNS (client bundles must not import the server module). */
export const COMPARE_MAX_RUNS = 8;
