import { expect, test } from '@playwright/test';
import { env, signIn } from './support';

// Small things users hit (issue 37, §3 and §5): a mouse wheel over a focused number field must
// not change what was typed (a typed 120 became 119 and was launched), and the app has an icon.

test('launch form: the mouse wheel over a focused number field leaves the typed value', async ({ page }) => {
  await signIn(page, 'admin', env.adminPassword);
  await page.goto('/runs/new');
  const iterations = page.getByLabel('Iterations');
  await iterations.fill('120');
  await iterations.focus();
  await iterations.hover();
  await page.mouse.wheel(0, 200);
  // the wheel takes the focus off the field, so no browser steps it (Chromium here does not step a
  // number field on the wheel at all; Firefox and older Chrome did): it scrolls the page instead
  await expect(iterations).not.toBeFocused();
  await page.mouse.wheel(0, -200);
  await expect(iterations).toHaveValue('120');
  // the keyboard still steps it, deliberately
  await iterations.focus();
  await page.keyboard.press('ArrowUp');
  await expect(iterations).toHaveValue('121');
});

test('the app has an icon: linked from every page and served', async ({ page }) => {
  await page.goto('/login');
  const href = await page.locator('link[rel="icon"]').first().getAttribute('href');
  expect(href).toBeTruthy();
  const res = await page.request.get(href!);
  expect(res.status()).toBe(200);
  expect(res.headers()['content-type']).toContain('image/svg+xml');
});
