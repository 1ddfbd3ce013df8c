import { describe, expect, it } from 'vitest';
import { goldScript } from './gold-script';
import { loadRepoSuite } from './repo-suite';

const patch = (file: string, body: string) => `diff --git a/${file} b/${file}\n--- a/${file}\n+++ b/${file}\n${body}`;

describe('goldScript: a gold patch as the tool calls an agent would make', () => {
  it('one str_replace per hunk, cut to the changed lines, then submit', () => {
    const files = { 'm.py': 'def f(x):\n    y = 1\n    return x - y\n\n\ndef g():\n    return 2\n' };
    const p = patch('m.py', '@@ -1,7 +1,7 @@\n def f(x):\n     y = 1\n-    return x - y\n+    return x + y\n \n \n def g():\n-    return 2\n+    return 3\n');
    expect(goldScript(files, p)).toEqual([
      // the hunk's first to last changed line: its unchanged lines between ride along
      {
        name: 'str_replace',
        arguments: { path: 'm.py', old_str: '    return x - y\n\n\ndef g():\n    return 2', new_str: '    return x + y\n\n\ndef g():\n    return 3' },
      },
      { name: 'submit', arguments: {} },
    ]);
  });

  it('widens by context lines on both sides until old_str is unique, and anchors a pure insertion on a context line', () => {
    const files = { 'a.js': 'if (a) {\n  x();\n}\nif (b) {\n  x();\n}\n' };
    const changed = patch('a.js', '@@ -3,4 +3,4 @@\n }\n if (b) {\n-  x();\n+  y();\n }\n');
    expect(goldScript(files, changed)[0]).toEqual({
      name: 'str_replace',
      arguments: { path: 'a.js', old_str: 'if (b) {\n  x();\n}', new_str: 'if (b) {\n  y();\n}' },
    });
    const inserted = patch('a.js', '@@ -1,3 +1,4 @@\n if (a) {\n+  log();\n   x();\n }\n');
    expect(goldScript(files, inserted)[0]).toEqual({
      name: 'str_replace',
      arguments: { path: 'a.js', old_str: 'if (a) {\n  x();', new_str: 'if (a) {\n  log();\n  x();' },
    });
  });

  it('writes a new file whole, and refuses a deletion by name', () => {
    const created = 'diff --git a/n.txt b/n.txt\nnew file mode 100644\n--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n';
    expect(goldScript({}, created)[0]).toEqual({ name: 'write_file', arguments: { path: 'n.txt', content: 'one\ntwo\n' } });
    const deleted = 'diff --git a/n.txt b/n.txt\ndeleted file mode 100644\n--- a/n.txt\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-one\n';
    expect(() => goldScript({ 'n.txt': 'one\n' }, deleted)).toThrow(/n\.txt.*deletes/);
  });

  it('every built-in task: the script replays to what its gold patch gives (checked inside), in a few calls', () => {
    for (const t of loadRepoSuite()) {
      const files = (t.workspace as { files: Record<string, string> }).files;
      const steps = goldScript(files, t.gold_patch!);
      expect(steps.at(-1), t.id).toEqual({ name: 'submit', arguments: {} });
      expect(steps.length, t.id).toBeLessThanOrEqual(12);
    }
  });
});
