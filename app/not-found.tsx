import Link from 'next/link';

export default function NotFound() {
  return (
    <div className="py-12 text-center">
      <h1 className="text-lg font-semibold">Page not found</h1>
      <p className="mt-1 text-slate-500">
        Nothing lives at this address.{' '}
        <Link className="text-accent underline" href="/runs">
          Go to runs
        </Link>
        .
      </p>
    </div>
  );
}
