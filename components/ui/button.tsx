import type { ButtonHTMLAttributes } from 'react';

type Variant = 'primary' | 'secondary' | 'danger' | 'ghost';

const variants: Record<Variant, string> = {
  primary: 'bg-accent text-white hover:bg-accent-hover border-transparent',
  secondary: 'bg-white text-slate-800 hover:bg-slate-100 border-slate-300',
  danger: 'bg-white text-red-700 hover:bg-red-50 border-red-300',
  ghost: 'bg-transparent text-slate-700 hover:bg-slate-200 border-transparent',
};

export const buttonClass = (variant: Variant = 'secondary') =>
  `inline-flex items-center gap-1.5 rounded border px-3 py-1.5 text-sm font-medium shadow-xs transition-colors disabled:cursor-not-allowed disabled:opacity-50 ${variants[variant]}`;

export function Button({ variant = 'secondary', className = '', type = 'button', ...props }: ButtonHTMLAttributes<HTMLButtonElement> & { variant?: Variant }) {
  return <button type={type} className={`${buttonClass(variant)} ${className}`} {...props} />;
}
