// The two transcripts a scripted meeting's summary is scored on: the script itself as timed words
// (what a perfect recogniser would give), and what pocketsphinx and the offline diarizer make of
// the synthesised audio (what a fresh install gives).
import {
  assignSpeakers,
  diarizationErrorRate,
  normaliseForWer,
  OfflineDiarizer,
  OFFLINE_DIARIZER_DEFAULTS,
  PocketsphinxStt,
  wordErrorRate,
  type DiarizationSegment,
  type Participant,
  type Word,
} from "@scribe/ai";
import type { Logger } from "@scribe/kit";
import { synthesizeMeeting, type GroundTruth } from "./synth";
import type { SummaryMeeting } from "./summary-meetings";

export const POCKETSPHINX_MODEL_DIR = "/usr/share/pocketsphinx/model/en-us";

export interface MeetingTranscript {
  words: Word[];
  /** Named as the script names them; `speaker` is the label the words carry. */
  participants: Participant[];
  duration: number;
}

export interface RecognisedTranscript extends MeetingTranscript {
  /** Word error rate of the recogniser against the script (0..1). */
  wer: number;
  /** Diarization error rate against the script's turns (0..1). */
  der: number;
}

function scriptParticipants(meeting: SummaryMeeting): Participant[] {
  return meeting.script.speakers.map((s, i) => ({ id: `p-${s.id}`, name: s.name, speaker: i }));
}

/** The script as words with punctuation, spread evenly over each turn's audible time. */
export async function scriptTranscript(meeting: SummaryMeeting): Promise<MeetingTranscript> {
  const { truth } = await synthesizeMeeting(meeting.script);
  const words = truth.turns.flatMap((turn) => {
    const spoken = turn.text.split(/\s+/).filter(Boolean);
    const step = (turn.end - turn.start) / spoken.length;
    return spoken.map((text, i) => ({
      text: ` ${text}`,
      start: turn.start + i * step,
      end: turn.start + (i + 1) * step,
      speaker: turn.speakerIndex,
    }));
  });
  return { words, participants: scriptParticipants(meeting), duration: truth.duration };
}

/**
 * pocketsphinx on the mixed audio, speakers from the offline diarizer. Diarizer labels are
 * arbitrary numbers; each is named after the script speaker it overlaps most, as a person naming
 * the speakers in the transcript view would.
 */
export async function recognisedTranscript(
  meeting: SummaryMeeting,
  opts: { modelDir?: string; concurrency?: number; logger?: Logger } = {},
): Promise<RecognisedTranscript> {
  const fx = await synthesizeMeeting(meeting.script);
  const stt = new PocketsphinxStt({
    modelDir: opts.modelDir ?? POCKETSPHINX_MODEL_DIR,
    chunkSeconds: 60,
    concurrency: opts.concurrency ?? 1,
    ...(opts.logger ? { logger: opts.logger } : {}),
  });
  const diarizer = new OfflineDiarizer({ ...OFFLINE_DIARIZER_DEFAULTS, ...(opts.logger ? { logger: opts.logger } : {}) });
  const [recognised, segments] = await Promise.all([stt.transcribe(fx.mixPath, { language: "en" }), diarizer.diarize(fx.mixPath)]);
  const words = assignSpeakers(recognised.words, segments);
  const der = diarizationErrorRate(truthSpans(fx.truth), segments);
  const wer = wordErrorRate(fx.truth.words, normaliseForWer(words.map((w) => w.text).join(""))).wer;
  const participants: Participant[] = [...namedLabels(fx.truth, segments)].map(([label, index]) => {
    const speaker = meeting.script.speakers[index]!;
    return { id: `p-${speaker.id}`, name: speaker.name, speaker: label };
  });
  return { words, participants, duration: fx.truth.duration, wer, der: der.der };
}

/**
 * Each diarizer label → the script speaker it overlaps most. Several labels may name one person
 * (the diarizer split a voice in two; a person naming speakers would name both).
 */
function namedLabels(truth: GroundTruth, segments: readonly DiarizationSegment[]): Map<number, number> {
  const overlap = new Map<number, Map<number, number>>();
  for (const seg of segments) {
    for (const turn of truth.turns) {
      const shared = Math.min(seg.end, turn.end) - Math.max(seg.start, turn.start);
      if (shared <= 0) continue;
      const row = overlap.get(seg.speaker) ?? new Map<number, number>();
      row.set(turn.speakerIndex, (row.get(turn.speakerIndex) ?? 0) + shared);
      overlap.set(seg.speaker, row);
    }
  }
  return new Map([...overlap].map(([label, row]) => [label, [...row].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0]![0]]));
}

function truthSpans(truth: GroundTruth) {
  return truth.turns.map((t) => ({ start: t.start, end: t.end, speaker: t.speakerIndex }));
}
