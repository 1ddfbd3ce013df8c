'use client';
import { useEffect, useId, useRef, type ReactNode } from 'react';
import { Button, buttonClass } from './button';

/**
 * The one confirmation dialog of the console (run clone, token revoke, role change,
 * re-enable…). A native modal `<dialog>`: the page behind is inert, focus stays inside, Esc
 * cancels, and focus returns to what opened it. Announced as an alertdialog with its title
 * and description; the safe choice (cancel) has focus first, so Enter never confirms by
 * accident.
 */
export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel,
  cancelLabel = 'Cancel',
  tone = 'primary',
  busy = false,
  error,
  onConfirm,
  onCancel,
}: {
  open: boolean;
  title: string;
  /** what will happen, in a sentence or two */
  children: ReactNode;
  confirmLabel: string;
  cancelLabel?: string;
  tone?: 'primary' | 'danger';
  busy?: boolean;
  /** shown inside the dialog when the confirmed action failed */
  error?: ReactNode;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const cancelRef = useRef<HTMLButtonElement>(null);
  const titleId = useId();
  const bodyId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      const opener = document.activeElement as HTMLElement | null;
      dialog.showModal();
      cancelRef.current?.focus();
      return () => {
        if (dialog.open) dialog.close();
        opener?.focus?.();
      };
    }
  }, [open]);
  if (!open) return null;
  return (
    <dialog
      ref={ref}
      role="alertdialog"
      aria-modal="true"
      aria-labelledby={titleId}
      aria-describedby={bodyId}
      data-testid="confirm-dialog"
      className="m-auto w-[min(28rem,calc(100vw-2rem))] rounded-lg border border-slate-200 bg-white p-0 text-left text-sm text-slate-800 shadow-xl backdrop:bg-slate-900/40"
      // m-auto: the UA centres a modal dialog with auto margins, which the CSS reset removes
      onCancel={(e) => {
        // Esc: close through React state, so the dialog and the page agree
        e.preventDefault();
        if (!busy) onCancel();
      }}
      onClick={(e) => {
        // a click on the backdrop (the dialog element itself, outside its content) cancels
        if (e.target === ref.current && !busy) onCancel();
      }}
    >
      <div className="p-4">
        <h2 id={titleId} className="mb-2 text-base font-semibold">
          {title}
        </h2>
        <div id={bodyId} className="space-y-2 text-slate-600">
          {children}
        </div>
        {error && <div className="mt-3">{error}</div>}
        <div className="mt-4 flex justify-end gap-2">
          <button type="button" ref={cancelRef} className={buttonClass('secondary')} onClick={onCancel} disabled={busy}>
            {cancelLabel}
          </button>
          <Button variant={tone} onClick={onConfirm} disabled={busy} data-testid="confirm-dialog-confirm">
            {busy ? `${confirmLabel}…` : confirmLabel}
          </Button>
        </div>
      </div>
    </dialog>
  );
}
