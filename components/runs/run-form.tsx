'use client';
import { useMemo, useRef, useState, type FormEvent } from 'react';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { runConfigSchema, type RunConfig } from '@/core/run-config';
import { useTRPC } from '../trpc';
import { errorHint, errorMessage, validationIssues } from '../api-error';
import { Button, buttonClass } from '../ui/button';
import { inputClass } from '../ui/layout-parts';
import { keepValueOnWheel } from '@/components/ui/number-wheel';
import { allFields, configFromValues, fieldGroups, valuesFromConfig, type FieldSpec, type FormValues } from './run-form-fields';
import { LaunchCostSummary } from './launch-cost-summary';
import { readableIssue, type FormIssue } from './form-issues';
import { isPolicyKey, POLICY_KEYS } from './policy-fields';
import { PolicySection, type ModelsState } from './policy-section';

const NAME = 'name';

/** The most one sandbox host offers a task (from `runs.launchOptions`), so the form can say so before launch. */
type HostLimit = { cpus: number; cpusHost: string; memoryMb: number; memoryHost: string };

function validate(name: string, values: FormValues, largest?: HostLimit, models?: ModelsState): Record<string, string> {
  const { config, errors } = configFromValues(values);
  // the server refuses an unregistered model too; saying so here names the field (a copied run's model may have been removed)
  const model = values[POLICY_KEYS.model];
  if (model && models?.status === 'success' && !models.models.some((m) => m.name === model))
    errors[POLICY_KEYS.model] = `No model named "${model}" is registered: choose another, or register it with npx crucible models import DIR --name ${model}`;
  const quota = config.quota as { cpus?: number; memoryMb?: number } | undefined;
  if (largest && quota?.cpus && quota.cpus > largest.cpus)
    errors['quota.cpus'] = `At most ${largest.cpus}: no sandbox host has more vCPUs (largest: ${largest.cpusHost})`;
  if (largest && quota?.memoryMb && quota.memoryMb > largest.memoryMb)
    errors['quota.memoryMb'] = `At most ${largest.memoryMb}: no sandbox host has more memory (largest: ${largest.memoryHost})`;
  if (!name.trim()) errors[NAME] = 'Give the run a name';
  else if (name.trim().length > 120) errors[NAME] = 'Name is at most 120 characters';
  const parsed = runConfigSchema.safeParse(config);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const key = issue.path.join('.');
      errors[key] ??= readableIssue(issue as unknown as FormIssue);
    }
  }
  return errors;
}

export function RunForm({ initial, copiedFrom }: { initial?: Partial<RunConfig>; copiedFrom?: { id: string; name: string } }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const formRef = useRef<HTMLFormElement>(null);
  const [name, setName] = useState(copiedFrom ? `${copiedFrom.name}-copy` : '');
  const [values, setValues] = useState<FormValues>(() => valuesFromConfig(initial));
  const [touched, setTouched] = useState<Set<string>>(new Set());
  const [submitted, setSubmitted] = useState(false);
  const [controlArm, setControlArm] = useState(false);
  const suites = useQuery(trpc.runs.suites.queryOptions());
  const launchOptions = useQuery(trpc.runs.launchOptions.queryOptions());
  const modelsQuery = useQuery(trpc.models.list.queryOptions());
  const models = useMemo<ModelsState>(
    () =>
      modelsQuery.isError
        ? { status: 'error', error: modelsQuery.error }
        : modelsQuery.isSuccess
          ? { status: 'success', models: modelsQuery.data }
          : { status: 'pending' },
    [modelsQuery.isError, modelsQuery.error, modelsQuery.isSuccess, modelsQuery.data],
  );

  const largest = launchOptions.data?.largest;
  const errors = useMemo(() => validate(name, values, largest, models), [name, values, largest, models]);
  const create = useMutation(
    trpc.runs.create.mutationOptions({
      onSuccess: async (run) => {
        await queryClient.invalidateQueries({ queryKey: trpc.runs.list.pathKey() });
        router.push(`/runs/${run.id}`);
      },
    }),
  );
  // Server-side validation errors, by field, for whatever the client schema did not catch.
  const serverErrors = useMemo(() => {
    const out: Record<string, string> = {};
    for (const i of validationIssues(create.error)) {
      const path = i.path[0] === 'config' ? i.path.slice(1) : i.path;
      out[path.join('.')] ??= i.message;
    }
    return out;
  }, [create.error]);

  const shown = (key: string) => (submitted || touched.has(key) ? (errors[key] ?? serverErrors[key]) : serverErrors[key]);
  const touch = (key: string) => setTouched((t) => (t.has(key) ? t : new Set(t).add(key)));
  const setValue = (key: string, v: string) => {
    setValues((vs) => ({ ...vs, [key]: v }));
    touch(key);
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setSubmitted(true);
    if (Object.keys(errors).length > 0) {
      // Put the cursor on the first problem so it is visible even in a long form.
      const first = formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]');
      first?.focus();
      return;
    }
    const { config } = configFromValues(values);
    // tiers left on "deployment default" stay unset: the launch fills them (and says so in the run's events)
    const isolation = config.isolation as Record<string, string> | undefined;
    create.mutate({ name: name.trim(), config: { ...runConfigSchema.parse(config), isolation }, controlArm });
  };

  const fieldKeys = new Set([NAME, ...allFields.map((f) => f.path), ...Object.values(POLICY_KEYS)]);
  // Errors on objects (e.g. "at least one reward weight must be positive") belong to a group.
  const groupErrors = (fields: FieldSpec[]) =>
    Object.entries({ ...serverErrors, ...(submitted || fields.some((f) => touched.has(f.path)) ? errors : {}) })
      .filter(([k]) => !fieldKeys.has(k) && fields.some((f) => f.path.startsWith(`${k}.`)))
      .map(([, m]) => m);
  const orphanServerErrors = Object.entries(serverErrors).filter(
    ([k]) => !fieldKeys.has(k) && !isPolicyKey(k) && !allFields.some((f) => f.path.startsWith(`${k}.`)),
  );
  // errors on the policy as a whole or on keys without a control of their own (e.g. one target module's name)
  const policyErrors = Object.entries({ ...serverErrors, ...(submitted || Object.values(POLICY_KEYS).some((k) => touched.has(k)) ? errors : {}) })
    .filter(([k]) => isPolicyKey(k) && !fieldKeys.has(k))
    .map(([, m]) => m);
  const invalidCount = Object.keys(errors).length;
  const suiteNames = suites.data?.map((s) => s.name) ?? [];
  // a suite of repository tasks runs agent episodes: then the tool set and agent budgets are shown
  const repoSuite = (suites.data?.find((s) => s.name === values.suite)?.repoTasks ?? 0) > 0;

  const renderField = (f: FieldSpec) => {
    const err = shown(f.path);
    const id = `field-${f.path}`;
    const common = {
      id,
      name: f.path,
      className: inputClass,
      value: values[f.path] ?? '',
      'aria-invalid': err ? true : undefined,
      'aria-describedby': err ? `${id}-error` : f.help ? `${id}-help` : undefined,
      onBlur: () => touch(f.path),
    } as const;
    let control;
    if (f.kind === 'checkboxes') {
      const checked = new Set((values[f.path] ?? '').split(',').map((x) => x.trim()));
      const toggle = (o: string, on: boolean) => {
        const next = f.options!.filter((x) => (x === o ? on : checked.has(x)));
        setValue(f.path, next.join(', '));
      };
      control = (
        <div role="group" id={id} aria-describedby={common['aria-describedby']} className="flex flex-wrap gap-x-4 gap-y-1 py-1">
          {f.options!.map((o) => {
            const fixed = f.fixed?.includes(o) ?? false;
            return (
              <label key={o} className="flex items-center gap-1.5 font-mono text-sm text-slate-700">
                <input
                  type="checkbox"
                  name={`${f.path}.${o}`}
                  checked={fixed || checked.has(o)}
                  disabled={fixed}
                  onChange={(e) => toggle(o, e.target.checked)}
                  onBlur={() => touch(f.path)}
                />
                {o}
              </label>
            );
          })}
        </div>
      );
    } else if (f.kind === 'select' && f.deploymentDefault) {
      // runtimes: those no sandbox host has are shown but cannot be chosen
      const available = launchOptions.data?.runtimes;
      const tier = f.path.split('.').pop() as 'routine' | 'high';
      const chosenDefault = launchOptions.data?.isolationDefaults?.[tier];
      const current = values[f.path] ?? '';
      const opts = current && !f.options!.includes(current) ? [current, ...f.options!] : f.options!;
      control = (
        <select {...common} onChange={(e) => setValue(f.path, e.target.value)}>
          <option value="">{`deployment default${chosenDefault ? ` (${chosenDefault})` : ''}`}</option>
          {opts.map((o) => {
            const missing = !!available && f.options!.includes(o) && !available.includes(o);
            return (
              <option key={o} value={o} disabled={missing && o !== current}>
                {missing ? `${o} (not installed)` : o}
              </option>
            );
          })}
        </select>
      );
    } else if (f.kind === 'select') {
      control = (
        <select {...common} onChange={(e) => setValue(f.path, e.target.value)}>
          {f.options!.map((o) => (
            <option key={o} value={o}>
              {o}
            </option>
          ))}
        </select>
      );
    } else if (f.kind === 'textarea') {
      control = <textarea {...common} rows={4} placeholder="Crucible’s default" onChange={(e) => setValue(f.path, e.target.value)} />;
    } else if (f.path === 'suite' && suiteNames.length > 0) {
      const suite = values.suite ?? '';
      const opts = suiteNames.includes(suite) ? suiteNames : [suite, ...suiteNames].filter(Boolean);
      control = (
        <select {...common} onChange={(e) => setValue(f.path, e.target.value)}>
          {opts.map((o) => (
            <option key={o} value={o}>
              {o}
            </option>
          ))}
        </select>
      );
    } else {
      control = (
        <input
          {...common}
          type={f.kind === 'number' ? 'number' : 'text'}
          step={f.step}
          inputMode={f.kind === 'number' ? 'decimal' : undefined}
          onWheel={keepValueOnWheel}
          onChange={(e) => setValue(f.path, e.target.value)}
        />
      );
    }
    return (
      <div key={f.path}>
        <label htmlFor={id} className="mb-1 block text-xs font-medium text-slate-600">
          {f.label}
        </label>
        {control}
        {err ? (
          <p id={`${id}-error`} role="alert" className="mt-1 text-xs text-red-700">
            {err}
          </p>
        ) : f.path === 'suite' && repoSuite ? (
          <p id={`${id}-help`} className="mt-1 text-xs text-slate-500" data-testid="repo-suite-note">
            Repository tasks: the agent edits a workspace through tools over several turns and is graded by the task&apos;s tests. Choose its tools and budgets
            under Agent.
          </p>
        ) : f.path === 'suite' && suites.isSuccess && suiteNames.length === 0 ? (
          <p id={`${id}-help`} className="mt-1 text-xs text-amber-700">
            No task suites are imported yet; the run cannot start until this suite exists.
          </p>
        ) : (
          f.help && (
            <p id={`${id}-help`} className="mt-1 text-xs text-slate-500">
              {f.help}
            </p>
          )
        )}
      </div>
    );
  };

  const nameErr = shown(NAME);
  return (
    <form ref={formRef} onSubmit={submit} noValidate aria-label="Launch run" className="space-y-4">
      <div className="rounded border border-slate-200 bg-white p-3">
        <label htmlFor="field-name" className="mb-1 block text-xs font-medium text-slate-600">
          Run name
        </label>
        <input
          id="field-name"
          name="name"
          className={`${inputClass} max-w-md`}
          value={name}
          placeholder="e.g. grpo-humaneval-lr3e-4"
          aria-invalid={nameErr ? true : undefined}
          aria-describedby={nameErr ? 'field-name-error' : undefined}
          onChange={(e) => {
            setName(e.target.value);
            touch(NAME);
          }}
          autoFocus
        />
        {nameErr && (
          <p id="field-name-error" role="alert" className="mt-1 text-xs text-red-700">
            {nameErr}
          </p>
        )}
        {copiedFrom && (
          <p className="mt-1 text-xs text-slate-500">
            Settings copied from{' '}
            <Link className="text-accent underline" href={`/runs/${copiedFrom.id}`}>
              {copiedFrom.name}
            </Link>
            .
          </p>
        )}
      </div>
      <PolicySection values={values} setValue={setValue} touch={touch} shown={shown} models={models} sectionErrors={policyErrors} />
      {fieldGroups
        .filter((g) => !g.repoOnly || repoSuite)
        .map((g) => {
          const gErrs = groupErrors(g.fields);
          return (
            <fieldset key={g.title} className="rounded border border-slate-200 bg-white p-3">
              <legend className="px-1 text-xs font-semibold uppercase tracking-wide text-slate-600">{g.title}</legend>
              <div className="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-3">{g.fields.filter((f) => !f.repoOnly || repoSuite).map(renderField)}</div>
              {gErrs.map((m) => (
                <p key={m} role="alert" className="mt-2 text-xs text-red-700">
                  {m}
                </p>
              ))}
            </fieldset>
          );
        })}
      <div className="rounded border border-slate-200 bg-white p-3">
        <label className="flex items-start gap-2 text-sm text-slate-700">
          <input
            type="checkbox"
            name="controlArm"
            className="mt-0.5"
            checked={controlArm}
            onChange={(e) => setControlArm(e.target.checked)}
            aria-describedby="field-controlArm-help"
          />
          <span>Also launch a control arm</span>
        </label>
        <p id="field-controlArm-help" className="mt-1 text-xs text-slate-500">
          A second run with the same config and seed but learning rate 0 (no update): same start, tasks and sampling seeds, so its curves show what the run
          would do without learning. Drawn next to this run&apos;s reward and pass-rate curves; costs about as much compute again.
        </p>
        {controlArm && Number(values.learningRate) === 0 && (
          <p role="alert" className="mt-1 text-xs text-red-700">
            The learning rate is 0 already: a control arm needs a run that learns.
          </p>
        )}
      </div>
      <LaunchCostSummary values={values} controlArm={controlArm} total={launchOptions.data?.total} />
      {create.isError && (
        <div role="alert" className="rounded border border-red-200 bg-red-50 px-3 py-2 text-red-800">
          <p className="font-medium">
            The server refused this run: {orphanServerErrors.length ? orphanServerErrors.map(([, m]) => m).join('; ') : errorMessage(create.error)}
          </p>
          <p>{errorHint(create.error)}</p>
        </div>
      )}
      <div className="flex items-center gap-3">
        <Button type="submit" variant="primary" disabled={create.isPending}>
          {create.isPending ? 'Launching…' : 'Launch run'}
        </Button>
        <Link href="/runs" className={buttonClass('ghost')}>
          Cancel
        </Link>
        {submitted && invalidCount > 0 && (
          <span className="text-red-700">
            {invalidCount} field{invalidCount > 1 ? 's need' : ' needs'} fixing before launch.
          </span>
        )}
      </div>
    </form>
  );
}
