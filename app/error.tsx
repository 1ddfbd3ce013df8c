'use client';
import { Button } from '@/components/ui/button';

export default function ErrorPage({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <div role="alert" className="rounded border border-red-200 bg-red-50 p-4 text-red-800">
      <p className="font-medium">This page failed to render: {error.message}</p>
      <p className="mt-1">Retry; if it keeps failing, check the server log (the terminal running `npm start`).</p>
      <Button className="mt-2" onClick={reset}>
        Retry
      </Button>
    </div>
  );
}
