import fs from 'node:fs';
import path from 'node:path';

/** `p` with symbolic links and `..` resolved, or null when it does not exist. */
export const realOrNull = (p: string) => {
  try {
    return fs.realpathSync(p);
  } catch {
    return null;
  }
};

/** Whether the resolved path `p` is `root` or lies below it. */
export const within = (p: string, root: string) => p === root || p.startsWith(root.endsWith(path.sep) ? root : `${root}${path.sep}`);
