// `npm run settings:table`: rewrite README.md's configuration table from core/settings.ts
// (core/settings.test.ts fails while the two differ).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { withSettingsTable } from '@/core/settings-table';

const readme = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'README.md');
const before = fs.readFileSync(readme, 'utf8');
const after = withSettingsTable(before);
if (after === before) console.log('README.md: configuration table already up to date');
else {
  fs.writeFileSync(readme, after);
  console.log('README.md: configuration table rewritten from core/settings.ts');
}
