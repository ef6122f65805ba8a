import { forwardRef, type InputHTMLAttributes } from 'react';

export const TextField = forwardRef<
  HTMLInputElement,
  { label: string; id: string } & InputHTMLAttributes<HTMLInputElement>
>(function TextField({ label, id, ...input }, ref) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input ref={ref} id={id} type="text" {...input} />
    </div>
  );
});
