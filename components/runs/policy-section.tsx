'use client';
import type { ReactNode } from 'react';
import Link from 'next/link';
import { LORA_MODULES, PRECISIONS, type Precision } from '@/core/models';
import { errorMessage } from '../api-error';
import { inputClass } from '../ui/layout-parts';
import { formatParameters } from '../models/model-format';
import { orderedTargets, POLICY_KEYS } from './policy-fields';
import type { FormValues } from './run-form-fields';
import { keepValueOnWheel } from '@/components/ui/number-wheel';

/** What the form shows of a registered model (a `models.list` row). */
export type ModelChoice = { name: string; architecture: string; parameters: number; dtype: string };

/** `models.list` as the form uses it: rows once loaded, the error otherwise. */
export type ModelsState = { status: 'pending' } | { status: 'error'; error: unknown } | { status: 'success'; models: ModelChoice[] };

type Props = {
  values: FormValues;
  setValue: (key: string, value: string) => void;
  touch: (key: string) => void;
  /** the error to show for a key now (the form decides: touched, submitted or from the server) */
  shown: (key: string) => string | undefined;
  models: ModelsState;
  /** errors on the policy as a whole (e.g. `policy.lora`), shown under the section */
  sectionErrors: string[];
};

const labelClass = 'mb-1 block text-xs font-medium text-slate-600';
const helpClass = 'mt-1 text-xs text-slate-500';
const fieldId = (key: string) => `field-${key}`;

function FieldMessage({ id, error, help }: { id: string; error?: string; help?: ReactNode }) {
  if (error)
    return (
      <p id={`${id}-error`} role="alert" className="mt-1 text-xs text-red-700">
        {error}
      </p>
    );
  return help ? (
    <p id={`${id}-help`} className={helpClass}>
      {help}
    </p>
  ) : null;
}

const PRECISION_LABELS: Record<Precision, string> = { fp32: 'fp32 (float32 throughout)', fp16: 'fp16 mixed precision', bf16: 'bf16 mixed precision' };

/**
 * The launch form's "Policy" section (issue 15): the built-in byte model or a registered
 * Hugging Face model, its training (full or LoRA) and the LoRA settings. The values are form
 * strings under POLICY_KEYS; policy-fields.ts turns them into the config.
 */
export function PolicySection({ values, setValue, touch, shown, models, sectionErrors }: Props) {
  const model = values[POLICY_KEYS.model] ?? '';
  const training = values[POLICY_KEYS.training] === 'full' ? 'full' : 'lora';
  const registered = models.status === 'success' ? models.models : [];
  const chosen = registered.find((m) => m.name === model);
  // a copied run's model stays an option while the list loads, and if it is no longer registered (its error says so)
  const options = model && !chosen ? [model, ...registered.map((m) => m.name)] : registered.map((m) => m.name);
  const describedBy = (key: string, help: boolean) => (shown(key) ? `${fieldId(key)}-error` : help ? `${fieldId(key)}-help` : undefined);

  const modelHelp =
    models.status === 'error' ? (
      <span className="text-red-700">Could not load the registered models: {errorMessage(models.error)}</span>
    ) : models.status === 'pending' ? (
      'Loading registered models…'
    ) : chosen ? (
      <span data-testid="policy-model-facts">
        {chosen.architecture} · {formatParameters(chosen.parameters)} parameters ({chosen.parameters.toLocaleString('en-US')}) · {chosen.dtype} ·{' '}
        <Link className="text-accent underline" href={`/models/${encodeURIComponent(chosen.name)}`} target="_blank">
          model details
        </Link>
      </span>
    ) : registered.length === 0 ? (
      <span className="text-amber-700" data-testid="no-models-note">
        No models are registered yet. Register a Hugging Face directory with <code>npx crucible models import DIR --name NAME</code> to train it here.
      </span>
    ) : (
      'Crucible’s small byte-level transformer, created for the run and warm-started on the suite’s demonstrations.'
    );

  const number = (key: string, label: string, step: string, help: string) => (
    <div>
      <label htmlFor={fieldId(key)} className={labelClass}>
        {label}
      </label>
      <input
        id={fieldId(key)}
        name={key}
        type="number"
        step={step}
        inputMode="decimal"
        onWheel={keepValueOnWheel}
        className={inputClass}
        value={values[key] ?? ''}
        aria-invalid={shown(key) ? true : undefined}
        aria-describedby={describedBy(key, true)}
        onChange={(e) => setValue(key, e.target.value)}
        onBlur={() => touch(key)}
      />
      <FieldMessage id={fieldId(key)} error={shown(key)} help={help} />
    </div>
  );

  const targets = new Set((values[POLICY_KEYS.targets] ?? '').split(',').map((x) => x.trim()));
  const toggleTarget = (m: string, on: boolean) => {
    const next = new Set(targets);
    if (on) next.add(m);
    else next.delete(m);
    setValue(POLICY_KEYS.targets, orderedTargets(next).join(', '));
  };

  return (
    <fieldset className="rounded border border-slate-200 bg-white p-3">
      <legend className="px-1 text-xs font-semibold uppercase tracking-wide text-slate-600">Policy</legend>
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-3">
        <div className="sm:col-span-2 lg:col-span-3">
          <label htmlFor={fieldId(POLICY_KEYS.model)} className={labelClass}>
            Model
          </label>
          <select
            id={fieldId(POLICY_KEYS.model)}
            name={POLICY_KEYS.model}
            className={`${inputClass} max-w-md`}
            value={model}
            aria-invalid={shown(POLICY_KEYS.model) ? true : undefined}
            aria-describedby={describedBy(POLICY_KEYS.model, true)}
            onChange={(e) => setValue(POLICY_KEYS.model, e.target.value)}
            onBlur={() => touch(POLICY_KEYS.model)}
          >
            <option value="">Built-in byte model</option>
            {options.map((name) => (
              <option key={name} value={name}>
                {models.status === 'success' && !registered.some((m) => m.name === name) ? `${name} (not registered)` : name}
              </option>
            ))}
          </select>
          <FieldMessage id={fieldId(POLICY_KEYS.model)} error={shown(POLICY_KEYS.model)} help={modelHelp} />
        </div>
        {model && (
          <fieldset className="sm:col-span-2 lg:col-span-3" aria-describedby={`${fieldId(POLICY_KEYS.training)}-help`}>
            <legend className={labelClass}>Training</legend>
            <div className="flex flex-wrap gap-x-6 gap-y-1 py-1">
              {(
                [
                  ['lora', 'LoRA adapter'],
                  ['full', 'Full fine-tuning'],
                ] as const
              ).map(([value, label]) => (
                <label key={value} className="flex items-center gap-1.5 text-sm text-slate-700">
                  <input
                    type="radio"
                    name={POLICY_KEYS.training}
                    value={value}
                    checked={training === value}
                    onChange={() => setValue(POLICY_KEYS.training, value)}
                  />
                  {label}
                </label>
              ))}
            </div>
            <p id={`${fieldId(POLICY_KEYS.training)}-help`} className={helpClass}>
              {training === 'lora'
                ? 'Trains small low-rank adapters on the chosen projections; the base weights stay frozen.'
                : 'Trains every weight, with optimizer state for all of them.'}{' '}
              Under PPO a value head on the model is trained with it.
            </p>
          </fieldset>
        )}
        {model && (
          <div>
            <label htmlFor={fieldId(POLICY_KEYS.precision)} className={labelClass}>
              Precision
            </label>
            <select
              id={fieldId(POLICY_KEYS.precision)}
              name={POLICY_KEYS.precision}
              className={inputClass}
              value={values[POLICY_KEYS.precision] ?? 'fp32'}
              aria-invalid={shown(POLICY_KEYS.precision) ? true : undefined}
              aria-describedby={describedBy(POLICY_KEYS.precision, true)}
              onChange={(e) => setValue(POLICY_KEYS.precision, e.target.value)}
              onBlur={() => touch(POLICY_KEYS.precision)}
            >
              {PRECISIONS.map((p) => (
                <option key={p} value={p}>
                  {PRECISION_LABELS[p]}
                </option>
              ))}
            </select>
            <FieldMessage
              id={fieldId(POLICY_KEYS.precision)}
              error={shown(POLICY_KEYS.precision)}
              help="Mixed precision keeps float32 master weights and runs matrix products in fp16 or bf16: half kernels on CUDA; on the CPU their rounding is emulated, slower than fp32. fp16 adds loss scaling; LoRA targets use their merged weight."
            />
          </div>
        )}
        {model && training === 'lora' && (
          <>
            {number(POLICY_KEYS.rank, 'LoRA rank', '1', 'r: 1–256. Trainable parameters grow with it.')}
            {number(POLICY_KEYS.alpha, 'LoRA alpha', 'any', 'The update is scaled by alpha / r.')}
            <div className="sm:col-span-2 lg:col-span-3">
              <span id={`${fieldId(POLICY_KEYS.targets)}-label`} className={labelClass}>
                Target modules
              </span>
              <div
                role="group"
                id={fieldId(POLICY_KEYS.targets)}
                aria-labelledby={`${fieldId(POLICY_KEYS.targets)}-label`}
                aria-describedby={describedBy(POLICY_KEYS.targets, true)}
                className="flex flex-wrap gap-x-4 gap-y-1 py-1"
              >
                {LORA_MODULES.map((m) => (
                  <label key={m} className="flex items-center gap-1.5 font-mono text-sm text-slate-700">
                    <input
                      type="checkbox"
                      name={`${POLICY_KEYS.targets}.${m}`}
                      checked={targets.has(m)}
                      onChange={(e) => toggleTarget(m, e.target.checked)}
                      onBlur={() => touch(POLICY_KEYS.targets)}
                    />
                    {m}
                  </label>
                ))}
              </div>
              <FieldMessage
                id={fieldId(POLICY_KEYS.targets)}
                error={shown(POLICY_KEYS.targets)}
                help="Projections that get an adapter (PEFT’s module names): attention q/k/v/o, MLP gate/up/down."
              />
            </div>
          </>
        )}
      </div>
      {sectionErrors.map((m) => (
        <p key={m} role="alert" className="mt-2 text-xs text-red-700">
          {m}
        </p>
      ))}
    </fieldset>
  );
}
