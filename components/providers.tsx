'use client';
import { useState, type ReactNode } from 'react';
import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createTRPCClient, httpBatchLink } from '@trpc/client';
import superjson from 'superjson';
import type { AppRouter } from '@/server/routers/index';
import { TRPCProvider } from './trpc';
import { errorCode } from './api-error';

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
        retry: (count, error) => count < 2 && !noRetry.has(errorCode(error) ?? ''),
      },
    },
  });
  return client;
}

function apiUrl() {
  // Queries only run in the browser, but the client is constructed during SSR too.
  if (typeof window !== 'undefined') return '/api/trpc';
  return `http://127.0.0.1:${process.env.PORT ?? 3000}/api/trpc`;
}

export function Providers({ children }: { children: ReactNode }) {
  const [queryClient] = useState(makeQueryClient);
  const [trpcClient] = useState(() =>
    createTRPCClient<AppRouter>({
      links: [httpBatchLink({ url: apiUrl(), transformer: superjson })],
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
