// Asks before a destructive action, in a modal <dialog> (focus stays inside, Escape cancels).
import { useEffect, useRef, useState } from "preact/hooks";
import type { JSX } from "preact";

export interface Question {
  title: string;
  body: string;
  /** The confirming button's label, e.g. "Delete". */
  confirm: string;
}

export function useConfirm(): [JSX.Element | null, (question: Question) => Promise<boolean>] {
  const [question, setQuestion] = useState<Question | null>(null);
  const resolver = useRef<((answer: boolean) => void) | null>(null);
  const dialog = useRef<HTMLDialogElement>(null);

  useEffect(() => {
    if (question && dialog.current && !dialog.current.open) dialog.current.showModal();
  }, [question]);

  function answer(yes: boolean) {
    dialog.current?.close();
    setQuestion(null);
    resolver.current?.(yes);
    resolver.current = null;
  }

  const element = question && (
    <dialog
      ref={dialog}
      aria-labelledby="confirm-title"
      onCancel={(e) => {
        e.preventDefault();
        answer(false);
      }}
    >
      <article>
        <h2 id="confirm-title">{question.title}</h2>
        <p>{question.body}</p>
        <footer>
          <button class="secondary" onClick={() => answer(false)}>
            Cancel
          </button>
          <button onClick={() => answer(true)}>{question.confirm}</button>
        </footer>
      </article>
    </dialog>
  );

  function ask(next: Question): Promise<boolean> {
    resolver.current?.(false);
    setQuestion(next);
    return new Promise((resolve) => (resolver.current = resolve));
  }
  return [element, ask];
}

/** Saves what `url` answers as a file named `name` (the browser's download, streamed to disk). */
export function saveUrl(url: string, name: string): void {
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
}

/** Saves `blob` as a file named `name` (the browser's download). */
export function saveFile(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  saveUrl(url, name);
  // The download has read the URL once the click's task ran; keep it a while for slow browsers.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
