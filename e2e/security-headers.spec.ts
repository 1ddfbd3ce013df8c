import { expect, test, type APIResponse } from '@playwright/test';
import { env, signIn } from './support';

// The headers next.config.mjs sets on every response, pages and API alike.
function expectSecurityHeaders(headers: Record<string, string>) {
  const csp = headers['content-security-policy'] ?? '';
  for (const directive of ["default-src 'self'", "object-src 'none'", "base-uri 'self'", "form-action 'self'", "frame-ancestors 'none'"]) {
    expect(csp).toContain(directive);
  }
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect(headers['referrer-policy']).toBe('same-origin');
  expect(headers['x-frame-options']).toBe('DENY');
}

const trpcBody = (input: unknown) => JSON.stringify({ json: input });
const errorOf = async (res: APIResponse) => ((await res.json()) as { error: { json: { message: string } } }).error.json.message;

test('console pages carry the security headers and the console works under the CSP', async ({ page }) => {
  const violations: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy|Refused to/i.test(m.text())) violations.push(m.text());
  });
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => console.error(`Refused by Content Security Policy: ${e.violatedDirective} ${e.blockedURI}`));
  });
  const login = await page.goto('/login');
  expectSecurityHeaders(login!.headers());
  // Signing in is a same-origin tRPC mutation from the browser: the Origin check lets it through.
  await signIn(page, 'admin', env.adminPassword);
  const runs = await page.goto('/runs');
  expectSecurityHeaders(runs!.headers());
  await expect(page.getByRole('link', { name: 'Launch run' })).toBeVisible();
  await expect(page.getByTestId('current-user')).toContainText('admin');
  expect(violations).toEqual([]);
});

test('the API refuses cross-site posts and oversized JSON; a large task file goes through the upload route', async ({ request }) => {
  const signIn = await request.post('/api/trpc/auth.login', {
    headers: { 'content-type': 'application/json' },
    data: trpcBody({ username: 'admin', password: env.adminPassword }),
  });
  expect(signIn.status()).toBe(200);
  expectSecurityHeaders(signIn.headers());

  const forged = await request.post('/api/trpc/runs.create', {
    headers: { 'content-type': 'application/json', origin: 'https://evil.example' },
    data: trpcBody({ name: 'forged', config: {} }),
  });
  expect(forged.status()).toBe(403);
  expect(await errorOf(forged)).toMatch(/cross-site request refused/);

  const big = await request.post('/api/trpc/runs.create', {
    headers: { 'content-type': 'application/json' },
    data: trpcBody({ name: 'x'.repeat(2 * 1024 * 1024), config: {} }),
  });
  expect(big.status()).toBe(413);
  expect(await errorOf(big)).toMatch(/CRUCIBLE_MAX_BODY_BYTES/);

  const line = (i: number) =>
    JSON.stringify({
      id: `big-${i}`,
      language: 'python',
      prompt: `def f(x):\n    """${'pad '.repeat(1500)}"""\n`,
      entryPoint: 'f',
      tests: [{ input: [1], expected: 2 }],
    });
  const file = Array.from({ length: 400 }, (_, i) => line(i)).join('\n');
  const imported = await request.post('/api/tasks/import?suite=e2e-large', { headers: { 'content-type': 'application/x-ndjson' }, data: file });
  expect(imported.status(), await imported.text()).toBe(200);
  expect(await imported.json()).toMatchObject({ imported: 400, suite: { name: 'e2e-large' } });
});
