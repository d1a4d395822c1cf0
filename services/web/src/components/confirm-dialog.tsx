// A modal confirmation for destructive actions (the browser's own <dialog>: focus trapped, Escape cancels).
import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";

export function ConfirmDialog(props: {
  title: string;
  children: ComponentChildren;
  confirmLabel: string;
  /** The action; its error message (if it returns one) is shown in the dialog. */
  onConfirm: () => Promise<string | null>;
  onClose: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    dialog.current?.showModal();
  }, []);

  async function confirm() {
    setBusy(true);
    const failure = await props.onConfirm();
    setBusy(false);
    if (failure) return setError(failure);
    props.onClose();
  }

  return (
    <dialog ref={dialog} onClose={props.onClose} aria-labelledby="confirm-title">
      <article>
        <h2 id="confirm-title">{props.title}</h2>
        {props.children}
        {error && <p role="alert">{error}</p>}
        <footer>
          <button class="secondary" onClick={() => dialog.current?.close()}>
            Cancel
          </button>
          <button class="danger" aria-busy={busy} disabled={busy} onClick={() => void confirm()}>
            {props.confirmLabel}
          </button>
        </footer>
      </article>
    </dialog>
  );
}
