// API keys: create one (its secret is shown once, with a copy button), list them, delete after a confirmation.
import { useEffect, useState } from "preact/hooks";
import type { Schemas } from "@scribe/client";
import { api, describeError } from "../api";
import { ConfirmDialog } from "../components/confirm-dialog";
import { fieldErrors } from "../form-errors";

type ApiKey = Schemas["ApiKeyResponse"];

export function ApiKeys() {
  const [keys, setKeys] = useState<ApiKey[] | null>(null);
  const [name, setName] = useState("");
  const [created, setCreated] = useState<Schemas["CreateApiKeyResponse"] | null>(null);
  const [copied, setCopied] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [nameError, setNameError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [deleting, setDeleting] = useState<ApiKey | null>(null);
  const [reload, setReload] = useState(0);

  useEffect(() => {
    void api.GET("/v1/user/api-keys").then(({ data, error: failure }) => {
      setError(data ? null : describeError(failure));
      setKeys(data ?? null);
    });
  }, [reload]);

  async function create(event: Event) {
    event.preventDefault();
    setBusy(true);
    setNameError(null);
    setCopied(null);
    const { data, error: failure } = await api.POST("/v1/user/api-keys", { body: { name: name.trim() || null } });
    setBusy(false);
    if (!data) return setNameError(fieldErrors(failure).name ?? describeError(failure));
    setCreated(data);
    setName("");
    setReload((n) => n + 1);
  }

  async function copy(key: string) {
    try {
      await navigator.clipboard.writeText(key);
      setCopied("Copied to the clipboard.");
    } catch {
      setCopied("The browser did not allow copying: select the key and copy it.");
    }
  }

  async function remove(key: ApiKey): Promise<string | null> {
    const { error: failure } = await api.DELETE("/v1/user/api-keys/{key_id}", { params: { path: { key_id: key.id } } });
    if (failure) return describeError(failure);
    if (created?.id === key.id) setCreated(null);
    setReload((n) => n + 1);
    return null;
  }

  return (
    <section>
      <hgroup>
        <h1>API keys</h1>
        <p>Programs use a key to call Scribe's API as you, in the X-API-Key header.</p>
      </hgroup>
      <form onSubmit={(e) => void create(e)}>
        <fieldset role="group">
          <input
            name="name"
            aria-label="Key name"
            placeholder="What the key is for (optional)"
            value={name}
            aria-invalid={nameError ? true : undefined}
            aria-describedby={nameError ? "key-name-error" : undefined}
            onInput={(e) => setName(e.currentTarget.value)}
          />
          <button type="submit" aria-busy={busy} disabled={busy}>
            Create key
          </button>
        </fieldset>
        {nameError && (
          <small id="key-name-error" class="field-error">
            {nameError}
          </small>
        )}
      </form>
      {created && (
        <article class="new-key" aria-labelledby="new-key-title">
          <h2 id="new-key-title">Your new key{created.name ? ` “${created.name}”` : ""}</h2>
          <p>Copy it now: it is shown only once.</p>
          <fieldset role="group">
            <input readOnly aria-label="New API key" value={created.key} onFocus={(e) => e.currentTarget.select()} />
            <button type="button" onClick={() => void copy(created.key)}>
              Copy
            </button>
          </fieldset>
          {copied && <small role="status">{copied}</small>}
          <button type="button" class="secondary" onClick={() => setCreated(null)}>
            Done
          </button>
        </article>
      )}
      {error && <p role="alert">{error}</p>}
      {keys && keys.length === 0 && <p>No API keys yet.</p>}
      {keys && keys.length > 0 && (
        <div class="overflow-auto">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Created</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.map((key) => (
                <tr key={key.id} data-key-id={key.id}>
                  <td>{key.name ?? <em>unnamed</em>}</td>
                  <td>{new Date(key.created_at).toLocaleString()}</td>
                  <td>
                    <button class="outline secondary" onClick={() => setDeleting(key)} aria-label={`Delete key ${key.name ?? key.id}`}>
                      Delete
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {deleting && (
        <ConfirmDialog
          title={`Delete the key ${deleting.name ?? ""}?`}
          confirmLabel="Delete key"
          onConfirm={() => remove(deleting)}
          onClose={() => setDeleting(null)}
        >
          <p>Programs using it stop working at once.</p>
        </ConfirmDialog>
      )}
    </section>
  );
}
