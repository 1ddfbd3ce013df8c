'use client';
import { useState, type ReactNode } from 'react';
import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createTRPCClient, httpBatchLink, httpLink, splitLink } from '@trpc/client';
import { z } from 'zod';
import superjson from 'superjson';
import type { AppRouter } from '@/server/routers/index';
import { TRPCProvider } from './trpc';
import { errorCode } from './api-error';
import { shareEqual } from './share-equal';

// Errors a retry cannot fix: the request itself is wrong or not allowed.
const noRetry = new Set(['BAD_REQUEST', 'UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'CONFLICT', 'PRECONDITION_FAILED']);

function makeQueryClient() {
  // A session that expired mid-use: re-check who we are, and the shell sends us to /login.
  const onError = (error: unknown) => {
    if (errorCode(error) === 'UNAUTHORIZED') void client.invalidateQueries({ queryKey: [['auth', 'me']] });
  };
  const client: QueryClient = new QueryClient({
    queryCache: new QueryCache({ onError }),
    mutationCache: new MutationCache({ onError }),
    defaultOptions: {
      queries: {
        staleTime: 2_000,
        refetchOnWindowFocus: true,
        // a poll that returns what the page has keeps its objects (Dates too), so nothing redraws
        structuralSharing: shareEqual,
        retry: (count, error) => count < 2 && !noRetry.has(errorCode(error) ?? ''),
      },
    },
  });
  return client;
}

function apiUrl(serverPort: number) {
  // Queries only run in the browser, but the client is constructed during SSR too.
  if (typeof window !== 'undefined') return '/api/trpc';
  return `http://127.0.0.1:${serverPort}/api/trpc`;
}

/**
 * `serverPort`: the console's port (settings().PORT), passed in by the root layout because
 * client components see no server settings (only NEXT_PUBLIC_* variables reach them).
 */
// zod v4 compiles object parsers with `new Function` unless jitless; the console's CSP has no
// 'unsafe-eval', and its probe for eval is itself reported as a violation
z.config({ jitless: true });

/** Procedures that can take seconds: never batched with others. */
const SLOW_PROCEDURES = new Set(['runs.launchOptions']);

export function Providers({ children, serverPort }: { children: ReactNode; serverPort: number }) {
  const [queryClient] = useState(makeQueryClient);
  const [trpcClient] = useState(() =>
    createTRPCClient<AppRouter>({
      links: [
        splitLink({
          // slow calls go alone, so a batch of fast ones (the launch form's suites and models) never waits on them:
          // runs.launchOptions probes the sandbox runtimes (seconds on a loaded host)
          condition: (op) => SLOW_PROCEDURES.has(op.path),
          true: httpLink({ url: apiUrl(serverPort), transformer: superjson }),
          // At most 10 calls a request: the server refuses batches over CRUCIBLE_MAX_BATCH (default 20).
          false: httpBatchLink({ url: apiUrl(serverPort), transformer: superjson, maxItems: 10 }),
        }),
      ],
    }),
  );
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        {children}
      </TRPCProvider>
    </QueryClientProvider>
  );
}
