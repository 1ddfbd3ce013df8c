'use client';
import Link from 'next/link';
import { useState } from 'react';
import { usePathname, useRouter } from 'next/navigation';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTRPC } from './trpc';
import { can, type Capability } from '@/core/roles';
import type { CurrentUser } from './session';

/** `needs`: the capability a page's procedures require; pages without one are for every signed-in user. */
type NavItem = { href: string; label: string; needs?: Capability };

// Only pages that exist; later features add their entries here.
const items: NavItem[] = [
  { href: '/runs', label: 'Runs' },
  { href: '/models', label: 'Models' },
  { href: '/workers', label: 'Workers' },
  { href: '/resources', label: 'Resources' },
  { href: '/alerts', label: 'Alerts' },
  { href: '/logs', label: 'Logs' },
  { href: '/review', label: 'Review', needs: 'review' },
  { href: '/reviewers', label: 'Reviewers', needs: 'review' },
  { href: '/admin/users', label: 'Users', needs: 'manageUsers' },
  { href: '/admin/tokens', label: 'Tokens', needs: 'manageUsers' },
  { href: '/audit', label: 'Audit', needs: 'manageUsers' },
];

export function Nav({ user }: { user: CurrentUser | null }) {
  const pathname = usePathname();
  const router = useRouter();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const logout = useMutation(
    trpc.auth.logout.mutationOptions({
      onSettled: () => {
        queryClient.clear();
        router.replace('/login');
      },
    }),
  );
  const visible = items.filter((i) => !i.needs || can(user?.role, i.needs));
  // firing alerts nobody acknowledged and nothing mutes: the number beside "Alerts"
  const alertCounts = useQuery({ ...trpc.alerts.counts.queryOptions(), enabled: !!user, refetchInterval: 30_000 });
  const firing = alertCounts.data?.firing ?? 0;
  // below md the links fold into a menu: nine of them are ~700 px and pushed a phone's page sideways
  const [open, setOpen] = useState(false);
  const [openedAt, setOpenedAt] = useState(pathname);
  if (open && openedAt !== pathname) setOpen(false); // closed by navigating
  const links = (layout: string) =>
    visible.map((i) => {
      const active = pathname === i.href || pathname.startsWith(`${i.href}/`);
      return (
        <Link
          key={i.href}
          href={i.href}
          aria-current={active ? 'page' : undefined}
          className={`whitespace-nowrap rounded px-2 py-1 ${layout} ${active ? 'bg-slate-700 text-white' : 'hover:bg-slate-800 hover:text-white'}`}
        >
          {i.label}
          {i.href === '/alerts' && firing > 0 && (
            <span
              data-testid="nav-alert-count"
              title={`${firing} firing alert(s) not acknowledged${alertCounts.data?.critical ? `, ${alertCounts.data.critical} critical` : ''}`}
              className={`ml-1 rounded-full px-1.5 text-xs font-semibold text-white ${alertCounts.data?.critical ? 'bg-red-600' : 'bg-amber-600'}`}
            >
              {firing}
            </span>
          )}
        </Link>
      );
    });
  return (
    <header className="border-b border-slate-800 bg-slate-900 text-slate-200">
      <div className="mx-auto flex h-11 max-w-7xl items-center gap-4 px-4">
        <Link href="/runs" className="font-semibold tracking-tight text-white">
          Crucible
        </Link>
        {user && (
          <button
            type="button"
            className="rounded px-2 py-1 text-slate-300 hover:bg-slate-800 hover:text-white md:hidden"
            aria-expanded={open}
            aria-controls="main-menu"
            onClick={() => {
              setOpen((o) => !o);
              setOpenedAt(pathname);
            }}
          >
            Menu
          </button>
        )}
        <nav aria-label="Main" className="hidden items-center gap-1 md:flex">
          {user && links('')}
        </nav>
        {user && (
          <div className="ml-auto flex min-w-0 items-center gap-3 whitespace-nowrap">
            <Link href="/account" title="Your account: change password" data-testid="current-user" className="min-w-0 truncate text-slate-300 hover:text-white">
              {user.displayName || user.username} <span className="rounded bg-slate-700 px-1.5 py-0.5 text-xs text-slate-200">{user.role}</span>
            </Link>
            <button
              type="button"
              onClick={() => logout.mutate()}
              disabled={logout.isPending}
              className="rounded px-2 py-1 text-slate-300 hover:bg-slate-800 hover:text-white"
            >
              Sign out
            </button>
          </div>
        )}
      </div>
      {user && open && (
        <nav id="main-menu" aria-label="Main" className="flex flex-col gap-0.5 border-t border-slate-800 px-4 py-2 md:hidden">
          {links('block')}
        </nav>
      )}
    </header>
  );
}
