// Rendered transcript documents (GET /v1/transcripts/{id}) kept by their tag, so reading an
// unchanged transcript again neither re-parses its words nor serialises it again. Entries are keyed
// by the document tag, which changes with every change of the transcript, so an entry is never
// stale; the least recently used go when the cache passes its size.
export class DocumentCache {
  private readonly entries = new Map<string, string>();
  private size = 0;

  constructor(
    /** Characters of JSON held at most. */
    private readonly maxChars: number,
  ) {}

  get(key: string): string | undefined {
    const json = this.entries.get(key);
    if (json === undefined) return undefined;
    // Most recently used last.
    this.entries.delete(key);
    this.entries.set(key, json);
    return json;
  }

  set(key: string, json: string): void {
    if (json.length > this.maxChars) return;
    const old = this.entries.get(key);
    if (old !== undefined) {
      this.size -= old.length;
      this.entries.delete(key);
    }
    this.entries.set(key, json);
    this.size += json.length;
    for (const [k, v] of this.entries) {
      if (this.size <= this.maxChars) break;
      this.entries.delete(k);
      this.size -= v.length;
    }
  }
}
