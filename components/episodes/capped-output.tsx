'use client';
import { useState } from 'react';
import { capText } from './tool-call-display';

/** A long output's first lines, with a "show more" toggle for the rest. */
export function CappedOutput({ text, testId, tone = 'plain' }: { text: string; testId: string; tone?: 'plain' | 'error' }) {
  const [all, setAll] = useState(false);
  const cap = capText(text);
  const shown = all || !cap.capped ? text : cap.shown;
  return (
    // .log-block is unlayered CSS, so utilities cannot recolour it: an error is marked beside it
    <div className={tone === 'error' ? 'rounded border-l-4 border-red-500' : undefined} data-tone={tone}>
      <pre className="log-block" data-testid={testId}>
        {shown || <span className="italic text-slate-400">(no output)</span>}
      </pre>
      {cap.capped && (
        <button type="button" className="mt-1 text-xs text-accent hover:underline" onClick={() => setAll((v) => !v)} data-testid={`${testId}-toggle`}>
          {all ? 'show less' : `show more${cap.hiddenLines ? ` (${cap.hiddenLines} more line${cap.hiddenLines === 1 ? '' : 's'})` : ''}`}
        </button>
      )}
    </div>
  );
}
