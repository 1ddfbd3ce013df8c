import { diffFilePath, diffLines, diffStats, type DiffLineKind } from './diff-lines';

const lineClass: Record<DiffLineKind, string> = {
  file: 'bg-slate-200 font-semibold text-slate-800',
  meta: 'text-slate-500',
  hunk: 'bg-sky-50 text-sky-800',
  add: 'bg-emerald-50 text-emerald-900',
  del: 'bg-red-50 text-red-900',
  context: 'text-slate-700',
};

/**
 * A unified diff with + lines green and - lines red (data-kind on each line for tests);
 * `fileNotes` marks files in their header line (e.g. the ones grading dropped).
 */
export function DiffView({
  patch,
  testId,
  fileNotes,
  bounded = true,
}: {
  patch: string;
  testId?: string;
  fileNotes?: Record<string, string>;
  bounded?: boolean;
}) {
  return (
    <pre
      className={`${bounded ? 'max-h-[32rem] ' : ''}overflow-auto rounded border border-slate-200 bg-white py-1 font-mono text-xs leading-5`}
      data-testid={testId}
    >
      {diffLines(patch).map((l, i) => {
        const file = diffFilePath(l.text);
        const note = file !== null ? fileNotes?.[file] : undefined;
        return (
          <div key={i} data-kind={l.kind} className={`whitespace-pre-wrap break-all px-3 ${lineClass[l.kind]}`}>
            {l.text || ' '}
            {note && (
              <span className="ml-3 rounded bg-red-100 px-1.5 py-0.5 font-sans text-[11px] font-medium text-red-800" data-testid="diff-file-note">
                {note}
              </span>
            )}
          </div>
        );
      })}
    </pre>
  );
}

/** "2 files, +3 −1" for a diff's summary line. */
export function diffSummary(patch: string): string {
  const s = diffStats(patch);
  return `${s.files.length} file${s.files.length === 1 ? '' : 's'}, +${s.added} −${s.removed}`;
}

/**
 * A diff behind a summary line (files and changed lines), closed unless `open`. Empty diffs
 * say so instead of opening onto nothing.
 */
export function CollapsibleDiff({
  title,
  patch,
  note,
  open,
  testId,
  fileNotes,
  bounded,
}: {
  title: string;
  patch: string;
  note?: string;
  open?: boolean;
  testId: string;
  fileNotes?: Record<string, string>;
  /** cap the height (scrolling inside); off for a diff that is the page's subject */
  bounded?: boolean;
}) {
  if (!patch)
    return (
      <p className="text-xs text-slate-500" data-testid={testId}>
        <span className="font-semibold">{title}</span>: no changes{note ? ` (${note})` : ''}
      </p>
    );
  return (
    <details className="group rounded border border-slate-200" data-testid={testId} open={open}>
      <summary className="cursor-pointer select-none px-3 py-1.5 text-xs text-slate-600 hover:bg-slate-50">
        <span className="font-semibold text-slate-700">{title}</span> · <span data-testid={`${testId}-summary`}>{diffSummary(patch)}</span>
        {note && <span className="ml-2 text-slate-400">{note}</span>}
      </summary>
      <div className="border-t border-slate-200 p-2">
        <DiffView patch={patch} fileNotes={fileNotes} bounded={bounded} />
      </div>
    </details>
  );
}
