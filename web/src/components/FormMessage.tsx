/** The alert region of a form: errors are announced, successes politely. */
export function FormMessage({ error, success }: { error?: string | null; success?: string | null }) {
  return (
    <>
      <div role="alert" className={error ? 'form-message form-message--error' : 'form-message'}>
        {error}
      </div>
      {success ? (
        <div role="status" className="form-message form-message--success">
          {success}
        </div>
      ) : null}
    </>
  );
}
