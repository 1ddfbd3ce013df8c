'use client';
import { Fragment, useState } from 'react';
import type { RunConfig } from '@/core/run-config';
import { fieldGroups } from './run-form-fields';
import { PolicySummary } from './policy-summary';

function getPath(obj: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((o, k) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined), obj);
}

/**
 * A value with a line-break opportunity after each comma: a list has no spaces
 * ("bash,read_file,write_file,str_replace,submit") and would run over the next column.
 * The text stays as it was (a <wbr> has none).
 */
function ValueText({ text }: { text: string }) {
  return text.split(',').map((part, i) => (
    <Fragment key={i}>
      {i > 0 && (
        <>
          ,<wbr />
        </>
      )}
      {part}
    </Fragment>
  ));
}

/** Free text (a system prompt): its start, the whole of it on hover and in the JSON view; "default" when unset. */
function LongText({ text }: { text: string | undefined }) {
  if (text === undefined) return <span className="text-slate-500">default</span>;
  return <span title={text}>{text.length > 60 ? `${text.slice(0, 60)}…` : text}</span>;
}

/** The run's resolved config, grouped like the launch form, with the raw JSON one click away. */
export function ConfigView({ config }: { config: RunConfig }) {
  const [raw, setRaw] = useState(false);
  return (
    <div>
      <div className="mb-2 text-right">
        <button type="button" className="text-xs text-accent hover:underline" onClick={() => setRaw((r) => !r)}>
          {raw ? 'Show table' : 'Show JSON'}
        </button>
      </div>
      {raw ? (
        <pre className="log-block">{JSON.stringify(config, null, 2)}</pre>
      ) : (
        <>
          <p className="mb-3 text-sm">
            <span className="mr-2 text-xs font-semibold text-slate-500">Policy</span>
            <PolicySummary policy={config.policy} testId="config-policy" />
          </p>
          {/* columns by the room the view has (half the page from 1024 px), not the viewport's width */}
          <div className="grid grid-cols-[repeat(auto-fill,minmax(13rem,1fr))] gap-4">
            {fieldGroups.map((g) => (
              <div key={g.title}>
                <h3 className="mb-1 text-xs font-semibold text-slate-500">{g.title}</h3>
                <table className="w-full text-sm">
                  <tbody>
                    {g.fields.map((f) => (
                      <tr key={f.path} className="border-b border-slate-100">
                        <td className="py-0.5 pr-2 text-slate-600">{f.label}</td>
                        <td className="py-0.5 text-right font-mono text-xs" data-testid={`config-${f.path}`}>
                          {f.kind === 'textarea' ? (
                            <LongText text={getPath(config, f.path) as string | undefined} />
                          ) : (
                            <ValueText text={String(getPath(config, f.path) ?? '—')} />
                          )}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            ))}
          </div>
        </>
      )}
    </div>
  );
}
