// The fields every new transcript asks for (name and spoken language), and the error line under
// them: the same on the Upload and Live pages.
export const LANGUAGES: [code: string, name: string][] = [
  ["en", "English"],
  ["de", "German"],
  ["fr", "French"],
  ["es", "Spanish"],
  ["it", "Italian"],
  ["nl", "Dutch"],
  ["pt", "Portuguese"],
];

export function TranscriptFields(props: {
  name: string;
  onName: (name: string) => void;
  language: string;
  onLanguage: (language: string) => void;
  namePlaceholder: string;
  error: string | null;
}) {
  return (
    <>
      <div class="grid">
        <label>
          Name
          <input name="name" value={props.name} placeholder={props.namePlaceholder} onInput={(e) => props.onName(e.currentTarget.value)} />
        </label>
        <label>
          Spoken language
          <select name="language" value={props.language} onChange={(e) => props.onLanguage(e.currentTarget.value)}>
            {LANGUAGES.map(([code, label]) => (
              <option key={code} value={code}>
                {label}
              </option>
            ))}
          </select>
        </label>
      </div>
      {props.error && (
        <p role="alert" class="error">
          {props.error}
        </p>
      )}
    </>
  );
}
