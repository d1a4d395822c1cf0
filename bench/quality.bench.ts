// Offline summary quality on the scripted meetings (packages/simulators/src/speech/summary-meetings.ts):
// action-item recall and precision and decision coverage, on the script text and on what
// pocketsphinx and the offline diarizer make of the synthesised audio, with WER and DER beside
// them. The baseline is the offline summariser as it was before issue 18 (bench/baseline),
// measured in the same run on the same transcripts.
import { summariseMeeting, type Summariser, type SummaryContext } from "@scribe/ai";
import { ExtractiveSummariser } from "@scribe/ai";
import {
  recognisedTranscript,
  scoreSummary,
  scriptTranscript,
  summaryMeetings,
  type MeetingTranscript,
  type SummaryMeeting,
} from "@scribe/simulators";
import { ExtractiveSummariser as BaselineSummariser } from "./baseline/extractive-v1";
import { report } from "./report";

const GOALS = { recall: 0.9, precision: 0.8, decisions: 1 };

interface Tally {
  matched: number;
  expected: number;
  found: number;
  named: number;
  decisions: number;
  /** Short summaries that start a line with "Name:" or run past three sentences. */
  unreadable: number;
}

const emptyTally = (): Tally => ({ matched: 0, expected: 0, found: 0, named: 0, decisions: 0, unreadable: 0 });

async function score(summariser: Summariser, meeting: SummaryMeeting, transcript: MeetingTranscript, into: Tally) {
  const ctx: SummaryContext = { participants: transcript.participants, sourceLanguage: "en", targetLanguage: "en" };
  const { summary } = await summariseMeeting(transcript.words, summariser, ctx, { durationSeconds: transcript.duration });
  const s = scoreSummary(summary, meeting.truth);
  into.matched += s.tasks.matched;
  into.expected += s.tasks.expected;
  into.found += s.tasks.found;
  into.named += s.decisions.named;
  into.decisions += s.decisions.expected;
  const short = summary.shortSummary ?? "";
  if (/(^|\n)[\p{L} ]+\d*: /u.test(short) || (short.match(/[.!?](\s|$)/g) ?? []).length > 3) into.unreadable++;
  return s;
}

const pct = (x: number) => `${(x * 100).toFixed(0)}%`;
const ratio = (n: number, d: number) => (d ? n / d : 1);

export default async function bench(): Promise<void> {
  console.log(
    `goals (speech path): action-item recall >= ${pct(GOALS.recall)}, precision >= ${pct(GOALS.precision)}; ` +
      `long summary names ${pct(GOALS.decisions)} of decisions; short summary 2-3 sentences, no "Name:" prefixes`,
  );
  const totals = { text: emptyTally(), speech: emptyTally(), baselineText: emptyTally(), baselineSpeech: emptyTally() };
  let wordErrors = 0;
  let words = 0;
  let derSeconds = 0;
  let seconds = 0;
  for (const meeting of summaryMeetings) {
    const script = await scriptTranscript(meeting);
    const heard = await recognisedTranscript(meeting, { concurrency: 2 });
    const text = await score(new ExtractiveSummariser(), meeting, script, totals.text);
    const speech = await score(new ExtractiveSummariser(), meeting, heard, totals.speech);
    await score(new BaselineSummariser(), meeting, script, totals.baselineText);
    const old = await score(new BaselineSummariser(), meeting, heard, totals.baselineSpeech);
    const n = meeting.truth.tasks.length;
    wordErrors += heard.wer * meeting.script.turns.reduce((a, t) => a + t.text.split(/\s+/).length, 0);
    words += meeting.script.turns.reduce((a, t) => a + t.text.split(/\s+/).length, 0);
    derSeconds += heard.der * script.duration;
    seconds += script.duration;
    console.log(
      `${meeting.script.name} (${Math.round(script.duration)} s, ${meeting.script.speakers.length} speakers, ${n} tasks): ` +
        `speech recall ${pct(speech.tasks.recall)} precision ${pct(speech.tasks.precision)} decisions ${speech.decisions.named}/${speech.decisions.expected} ` +
        `(old ${pct(old.tasks.recall)}/${pct(old.tasks.precision)}, ${old.decisions.named}/${old.decisions.expected}); ` +
        `text recall ${pct(text.tasks.recall)} precision ${pct(text.tasks.precision)}; WER ${pct(heard.wer)} DER ${pct(heard.der)}`,
    );
    for (const m of speech.tasks.missed) console.log(`  missed on speech: ${m.owner}: ${m.task}${m.due ? ` (${m.due})` : ""}`);
    for (const e of speech.tasks.extra)
      console.log(`  extra on speech: ${e.assigned_to ?? "-"}: ${e.task}${e.deadline ? ` (${e.deadline})` : ""}`);
  }
  const line = (name: string, t: Tally, base: Tally, unit: "recall" | "precision" | "decisions") => {
    const value =
      unit === "recall" ? ratio(t.matched, t.expected) : unit === "precision" ? ratio(t.matched, t.found) : ratio(t.named, t.decisions);
    const baseValue =
      unit === "recall"
        ? ratio(base.matched, base.expected)
        : unit === "precision"
          ? ratio(base.matched, base.found)
          : ratio(base.named, base.decisions);
    report(
      { name: `${name} (goal ${pct(GOALS[unit])})`, value: value * 100, unit: "%" },
      { name: "old", value: baseValue * 100, unit: "%", label: `old summariser ${pct(baseValue)}` },
    );
  };
  console.log("overall:");
  line("action-item recall, pocketsphinx", totals.speech, totals.baselineSpeech, "recall");
  line("action-item precision, pocketsphinx", totals.speech, totals.baselineSpeech, "precision");
  line("decision coverage, pocketsphinx", totals.speech, totals.baselineSpeech, "decisions");
  line("action-item recall, script text", totals.text, totals.baselineText, "recall");
  line("action-item precision, script text", totals.text, totals.baselineText, "precision");
  line("decision coverage, script text", totals.text, totals.baselineText, "decisions");
  console.log(
    `short summaries with "Name:" prefixes or over 3 sentences: ${totals.speech.unreadable + totals.text.unreadable}/${2 * summaryMeetings.length} ` +
      `(old summariser ${totals.baselineSpeech.unreadable + totals.baselineText.unreadable}/${2 * summaryMeetings.length})`,
  );
  report({ name: "pocketsphinx WER, all fixtures (word-weighted)", value: (wordErrors / words) * 100, unit: "%" });
  report({ name: "offline diarization DER, all fixtures (time-weighted)", value: (derSeconds / seconds) * 100, unit: "%" });
}
