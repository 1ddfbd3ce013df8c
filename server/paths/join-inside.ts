import path from 'node:path';

/**
 * `dir` joined with a stored name, refused unless the name is a plain file name
 * (`^[A-Za-z0-9][A-Za-z0-9._-]*$`) and the joined path stays inside `dir`. For names read back
 * from the database: the app role every worker host holds can rewrite a row, so a name is
 * checked on the way out as it was on the way in (docs/security.md, "Stored names").
 */
export function joinInside(dir: string, name: string): string {
  const joined = path.resolve(dir, name);
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name) || path.dirname(joined) !== path.resolve(dir))
    throw new Error(`refusing the stored file name ${JSON.stringify(name)}: not a plain file name inside ${dir}`);
  return joined;
}
