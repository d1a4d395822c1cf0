// The line assembler of the live pipeline (§10): recognised text becomes TRANSCRIPT events at
// sentence ends (`.`, `?`, `!`), at a pause in speech (recognisers without punctuation, such as
// pocketsphinx, end sentences only by pausing), or once a line reaches 1000 characters.

export const MAX_LINE_CHARS = 1000;

export class LineAssembler {
  private pending = "";

  /** Text of one utterance; `pause` when the speaker stopped after it. Returns the finished lines. */
  add(text: string, pause: boolean): string[] {
    this.pending += text;
    const lines: string[] = [];
    for (;;) {
      const end = /[.?!]+(?=\s|$)/.exec(this.pending);
      const cut = end ? end.index + end[0].length : this.pending.length > MAX_LINE_CHARS ? MAX_LINE_CHARS : -1;
      if (cut < 0) break;
      lines.push(this.pending.slice(0, cut));
      this.pending = this.pending.slice(cut);
    }
    if (pause) {
      lines.push(this.pending);
      this.pending = "";
    }
    return lines.map((l) => l.trim()).filter((l) => l.length > 0);
  }

  /** The rest, at the end of the stream. */
  flush(): string[] {
    return this.add("", true);
  }
}
