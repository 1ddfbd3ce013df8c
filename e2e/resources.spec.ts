import { expect, test } from '@playwright/test';
import { env, signIn } from './support';

// The e2e runner starts the app with its workers, the metrics sampler among them (every 5 s).
test('the resources page shows this node and a utilisation chart from the metrics worker', async ({ page }) => {
  await signIn(page, 'admin', env.adminPassword);
  await page.goto('/resources');
  await expect(page.getByRole('heading', { name: 'Resources' })).toBeVisible();
  await expect(page.getByTestId('node-row').first()).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('resource-chart').first()).toBeVisible();
  await page.getByLabel('Window').selectOption('24h');
  await expect(page.getByTestId('resource-chart').first()).toBeVisible();
});
