import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { childEnv, parseSettings, settingsSchema } from './settings';
import { settingsRows, settingsTable, TABLE_BEGIN, TABLE_END, withSettingsTable } from './settings-table';

const readme = fs.readFileSync(path.resolve(import.meta.dirname, '..', 'README.md'), 'utf8');
const keys = Object.keys(settingsSchema.shape);

describe('README configuration table', () => {
  it('every setting has a description (the table is generated from it)', () => {
    expect(
      settingsRows()
        .filter((r) => !r.description?.trim())
        .map((r) => r.key),
    ).toEqual([]);
  });

  it('README.md carries exactly the table generated from the schema (run `npm run settings:table`)', () => {
    const begin = readme.indexOf(TABLE_BEGIN);
    const end = readme.indexOf(TABLE_END);
    expect(begin, 'README.md has no settings-table markers').toBeGreaterThanOrEqual(0);
    const documented = readme.slice(begin, end + TABLE_END.length);
    const documentedKeys = [...documented.matchAll(/^\| `([A-Z0-9_]+)` \|/gm)].map((m) => m[1]);
    // Key lists first, so a missing or stale row is named in the failure.
    expect(documentedKeys, 'README rows vs schema keys: run `npm run settings:table`').toEqual(keys);
    expect(documented, 'README table differs from the schema: run `npm run settings:table`').toBe(settingsTable());
  });

  it('every CRUCIBLE_* variable the README mentions anywhere is a setting', () => {
    const mentioned = new Set(readme.match(/\bCRUCIBLE_[A-Z0-9_]*[A-Z0-9]\b/g) ?? []);
    expect([...mentioned].filter((k) => !keys.includes(k))).toEqual([]);
  });

  it('withSettingsTable replaces only what is between the markers', () => {
    const text = `before\n${TABLE_BEGIN}\nold\n${TABLE_END}\nafter`;
    expect(withSettingsTable(text, 'NEW')).toBe('before\nNEW\nafter');
    expect(() => withSettingsTable('no markers')).toThrow(/markers/);
  });
});

describe('parseSettings', () => {
  it('applies defaults and types values', () => {
    const s = parseSettings({ PORT: '3001', CRUCIBLE_TRUST_PROXY: '1', CRUCIBLE_RESERVE_FRACTION: '0.5' });
    expect(s.PORT).toBe(3001);
    expect(s.CRUCIBLE_TRUST_PROXY).toBe(true);
    expect(s.CRUCIBLE_RESERVE_FRACTION).toBe(0.5);
    expect(s.CRUCIBLE_DATA_DIR).toBe('.data');
    expect(s.CRUCIBLE_MAX_BODY_BYTES).toBe(1024 * 1024);
    expect(s.DATABASE_URL).toBeUndefined();
  });

  it('treats an empty value as unset', () => {
    const s = parseSettings({ PORT: '', DATABASE_URL: '', CRUCIBLE_TRUST_PROXY: '' });
    expect(s).toMatchObject({ PORT: 3000, CRUCIBLE_TRUST_PROXY: false });
    expect(s.DATABASE_URL).toBeUndefined();
  });

  it('refuses a bad value with the variable name instead of falling back', () => {
    expect(() => parseSettings({ CRUCIBLE_RESERVE_FRACTION: '0.99' })).toThrow(/CRUCIBLE_RESERVE_FRACTION/);
    expect(() => parseSettings({ CRUCIBLE_RESERVE_FRACTION: 'lots' })).toThrow(/CRUCIBLE_RESERVE_FRACTION/);
    expect(() => parseSettings({ PORT: '70000' })).toThrow(/PORT/);
    expect(() => parseSettings({ CRUCIBLE_WORKER_HEARTBEAT_MS: '0' })).toThrow(/CRUCIBLE_WORKER_HEARTBEAT_MS/);
    expect(() => parseSettings({ CRUCIBLE_TRUST_PROXY: 'yes' })).toThrow(/CRUCIBLE_TRUST_PROXY/);
  });
});

describe('childEnv', () => {
  it('puts defaults under the inherited environment and `set` over it; undefined removes', () => {
    const inherited = Object.keys(process.env)[0]!;
    const env = childEnv({ DATABASE_URL: undefined, PORT: '4000' }, { [inherited]: 'default-loses', CRUCIBLE_SOMETHING_NEW: 'kept' });
    expect(env[inherited]).toBe(process.env[inherited]);
    expect(env.CRUCIBLE_SOMETHING_NEW).toBe('kept');
    expect(env.PORT).toBe('4000');
    expect('DATABASE_URL' in env).toBe(false);
  });
});
