// The output of `pocketsphinx_continuous -time yes`, read into words: shared by the file backend
// (one process per chunk) and the live stream (one process per stream).
import type { SttWord } from "../types";

/** A word line of `-time yes` output: `word start end confidence`. */
export const POCKETSPHINX_WORD_LINE = /^(\S+) (\d+(?:\.\d+)?) (\d+(?:\.\d+)?) (-?\d+(?:\.\d+)?(?:e[-+]?\d+)?)$/;

/**
 * Parse `pocketsphinx_continuous -time yes` output: hypothesis lines are ignored, word lines are
 * `word start end confidence`. Fillers (`<s>`, `</s>`, `<sil>`, `[NOISE]`, `++BREATH++`) are dropped,
 * pronunciation variants (`for(3)`) lose their suffix, times are shifted by `offset`.
 *
 * The model writes no punctuation, but the decoder cuts utterances at pauses (`<s>` … `</s>`): an
 * utterance becomes a sentence (capital first letter, full stop at its end), so transcripts read as
 * sentences and the sentence-based segmentation of multitrack transcripts (api.md §3.1) has ends.
 */
export function parsePocketsphinxTimes(output: string, offset = 0): SttWord[] {
  const words: SttWord[] = [];
  let utteranceStart = 0;
  const closeUtterance = () => {
    if (words.length > utteranceStart) {
      const first = words[utteranceStart]!;
      first.text = first.text.replace(/^ (\p{Ll})/u, (_, c: string) => ` ${c.toUpperCase()}`);
      const last = words[words.length - 1]!;
      if (!/[.?!…]$/.test(last.text)) last.text += ".";
    }
    utteranceStart = words.length;
  };
  for (const line of output.split("\n")) {
    const m = POCKETSPHINX_WORD_LINE.exec(line.trim());
    if (!m) continue;
    const raw = m[1]!;
    if (raw === "<s>" || raw === "</s>") {
      closeUtterance();
      continue;
    }
    if (/^(<.*>|\[.*\]|\+\+.*\+\+)$/.test(raw)) continue;
    const word = raw.replace(/\(\d+\)$/, "");
    if (!word) continue;
    words.push({
      text: ` ${casePronoun(word)}`,
      start: round3(Number(m[2]) + offset),
      end: round3(Number(m[3]) + offset),
      // Posterior probabilities come out a hair above 1 (1.0001); clamp to a probability.
      confidence: Math.min(1, Math.max(0, Number(m[4]))),
    });
  }
  closeUtterance();
  return words;
}

/** The model's vocabulary is lower case; "i", "i'm", "i'll" read better as English writes them. */
function casePronoun(word: string): string {
  return /^i('|$)/.test(word) ? `I${word.slice(1)}` : word;
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;
