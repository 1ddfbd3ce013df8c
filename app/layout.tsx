import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import './globals.css';
import { settings } from '@/core/settings';
import { Providers } from '@/components/providers';
import { AppShell } from '@/components/session';

export const metadata: Metadata = {
  title: { default: 'Crucible', template: '%s · Crucible' },
  description: 'Control plane for agent reinforcement learning',
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>
        <Providers serverPort={settings().PORT}>
          <AppShell>{children}</AppShell>
        </Providers>
      </body>
    </html>
  );
}
