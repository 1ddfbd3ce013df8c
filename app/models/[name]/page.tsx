'use client';
import { detectToolCallFormat } from '@/core/tool-call-formats';
import Link from 'next/link';
import { useParams } from 'next/navigation';
import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc';
import { ErrorNotice, Loading } from '@/components/ui/states';
import { Facts, PageHeader, Section } from '@/components/ui/layout-parts';
import { DataTable } from '@/components/ui/data-table';
import { formatDateTime } from '@/components/display-format';
import { formatBytes, formatParameters } from '@/components/models/model-format';
import { ModelRuns } from '@/components/models/model-runs';

const num = (v: unknown) => (typeof v === 'number' ? v.toLocaleString('en-US') : '—');

export default function ModelPage() {
  const { name } = useParams<{ name: string }>();
  const trpc = useTRPC();
  const model = useQuery(trpc.models.show.queryOptions({ name: decodeURIComponent(name) }));
  if (model.isPending) return <Loading label="Loading model…" />;
  if (model.isError)
    return (
      <>
        <p className="mb-3">
          <Link href="/models" className="text-accent hover:underline">
            ← Models
          </Link>
        </p>
        <ErrorNotice title="Could not load the model" error={model.error} onRetry={() => model.refetch()} />
      </>
    );
  const m = model.data;
  const c = m.config;
  const preview = m.preview;
  return (
    <>
      <title>{`${m.name} · Models · Crucible`}</title>
      <p className="mb-2 text-sm">
        <Link href="/models" className="text-accent hover:underline">
          ← Models
        </Link>
      </p>
      <PageHeader
        title={m.name}
        subtitle={`${m.architecture} · imported ${formatDateTime(m.createdAt)} by ${m.createdBy}${m.source ? ` from ${m.source}` : ''}`}
      />
      <Section title="Model">
        <Facts
          items={[
            ['Architecture', m.architecture],
            ['Parameters', `${formatParameters(m.parameters)} (${m.parameters.toLocaleString('en-US')})`],
            ['Dtype', m.dtype],
            ['Layers', num(c.num_hidden_layers)],
            ['Hidden size', num(c.hidden_size)],
            ['Heads / KV heads', `${num(c.num_attention_heads)} / ${num(c.num_key_value_heads ?? c.num_attention_heads)}`],
            ['MLP size', num(c.intermediate_size)],
            ['Context', num(c.max_position_embeddings)],
            ['RoPE θ', num(c.rope_theta)],
            ['Output head', c.tie_word_embeddings ? 'tied to embedding' : 'lm_head'],
            [
              'Tool calls',
              m.chatTemplate
                ? `${detectToolCallFormat(m.chatTemplate)} format (from its chat template; a run can set toolCallFormat)`
                : 'none: no chat template, so no agent runs',
            ],
            ['Files', `${m.files.length} · ${formatBytes(m.bytes)}`],
          ]}
        />
      </Section>
      <Section title="Tokenizer">
        <Facts
          items={[
            ['Vocabulary', m.tokenizer ? m.tokenizer.vocabSize.toLocaleString('en-US') : 'not inspected (see the preview below)'],
            ['BOS id', m.tokenizer?.bos ?? '—'],
            ['EOS id', m.tokenizer?.eos ?? '—'],
            ['PAD id', m.tokenizer?.pad ?? '—'],
          ]}
        />
      </Section>
      <Section title="Hashes">
        <dl className="grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1 text-sm">
          <dt className="text-slate-500">Weights sha256</dt>
          <dd className="break-all font-mono text-xs" data-testid="weights-sha256">
            {m.weightsSha256}
          </dd>
          <dt className="text-slate-500">Tokenizer sha256</dt>
          <dd className="break-all font-mono text-xs" data-testid="tokenizer-sha256">
            {m.tokenizerSha256}
          </dd>
        </dl>
        <DataTable
          label="Files"
          wrapperClassName="mt-3 overflow-x-auto"
          rows={m.files}
          rowKey={(f) => f.path}
          columns={[
            { key: 'path', header: 'File', className: 'font-mono text-xs', cell: (f) => f.path },
            { key: 'size', header: 'Size', align: 'right', className: 'tabular-nums', cell: (f) => formatBytes(f.size) },
            { key: 'sha256', header: 'sha256 (artifact)', className: 'break-all font-mono text-xs text-slate-600', cell: (f) => f.sha256 },
          ]}
        />
      </Section>
      <Section title="Chat template">
        {!m.chatTemplate ? (
          <p className="text-slate-600" data-testid="no-chat-template">
            This model has no chat template (none in tokenizer_config.json, no chat_template.jinja): prompts are plain text.
          </p>
        ) : (
          <div className="grid gap-3 lg:grid-cols-2">
            <div>
              <h3 className="mb-1 text-xs font-semibold text-slate-600">Sample conversation</h3>
              <ol className="space-y-1 text-sm">
                {preview?.messages.map((msg, i) => (
                  <li key={i}>
                    <span className="mr-1 rounded bg-slate-100 px-1.5 py-0.5 font-mono text-xs text-slate-700">{msg.role}</span>
                    {msg.content}
                  </li>
                ))}
              </ol>
            </div>
            <div>
              <h3 className="mb-1 text-xs font-semibold text-slate-600">
                Rendered by the model&apos;s template (with the generation prompt){preview && 'tokens' in preview && ` · ${preview.tokens} tokens`}
              </h3>
              {preview && 'text' in preview ? (
                <pre
                  data-testid="chat-preview"
                  className="max-h-80 overflow-auto whitespace-pre-wrap rounded border border-slate-200 bg-slate-50 p-2 font-mono text-xs"
                >
                  {preview.text}
                </pre>
              ) : (
                <p role="alert" className="rounded border border-amber-300 bg-amber-50 px-2 py-1 text-amber-900">
                  The template refuses this conversation: {preview?.error}
                </p>
              )}
            </div>
            <details className="lg:col-span-2">
              <summary className="cursor-pointer text-sm text-slate-600">Template source ({m.chatTemplate.length.toLocaleString('en-US')} characters)</summary>
              <pre className="mt-1 max-h-96 overflow-auto whitespace-pre-wrap rounded border border-slate-200 bg-slate-50 p-2 font-mono text-xs">
                {m.chatTemplate}
              </pre>
            </details>
          </div>
        )}
      </Section>
      <Section title="Runs">
        <ModelRuns name={m.name} />
      </Section>
      <Section title="config.json">
        <details>
          <summary className="cursor-pointer text-sm text-slate-600">As imported</summary>
          <pre className="mt-1 max-h-96 overflow-auto rounded border border-slate-200 bg-slate-50 p-2 font-mono text-xs">{JSON.stringify(c, null, 2)}</pre>
        </details>
      </Section>
    </>
  );
}
