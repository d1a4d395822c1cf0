// Offline diarization: cepstral features from ffmpeg-decoded PCM, window embeddings clustered by
// average linkage (the merge threshold estimates how many people spoke), then a Viterbi pass with
// one Gaussian per speaker places the turn boundaries at frame (10 ms) precision.
import type { Logger } from "@scribe/kit";
import { decodeSamples, resolveAudio } from "../audio";
import type { AudioInput, DiarizationSegment, Diarizer } from "../types";
import { DEFAULT_FEATURES, FeatureExtractor, type Features } from "./features";
import { averageLinkage, cutMerges, fitSpeakerModels, mergeByGlr, viterbi, voiceActivity, windowEmbeddings } from "./cluster";

export interface OfflineDiarizerOptions {
  /** Upper bound on the speakers reported. */
  maxSpeakers: number;
  /**
   * Per-frame likelihood ratio (nats) above which two clusters are different people. Measured on
   * flite voices: the same voice merges at ≤ 0.17, two voices stay apart at ≥ 0.5.
   */
  threshold: number;
  logger?: Logger;
}

export const OFFLINE_DIARIZER_DEFAULTS: Omit<OfflineDiarizerOptions, "logger"> = { maxSpeakers: 8, threshold: 0.3 };

/**
 * Window clustering deliberately over-splits (cosine distance on file-standardised embeddings has
 * no absolute scale); the GLR merge that follows decides how many people there are.
 */
const WINDOW_CUT = 0.7;
const MAX_WINDOW_CLUSTERS = 16;

/** Embedding windows: 1.5 s every 0.75 s; long recordings widen the hop to keep ≤ 1500 windows. */
const WINDOW_FRAMES = 150;
const MAX_WINDOWS = 1500;
/** Nats charged for a change of speaker in the Viterbi pass (≈ a few frames of evidence). */
const SWITCH_PENALTY = 60;

export class OfflineDiarizer implements Diarizer {
  readonly name = "offline";
  constructor(private readonly opts: OfflineDiarizerOptions) {}

  async diarize(audio: AudioInput, opts: { signal?: AbortSignal } = {}): Promise<DiarizationSegment[]> {
    const { source } = resolveAudio(audio);
    const extractor = new FeatureExtractor(DEFAULT_FEATURES);
    for await (const block of decodeSamples(source, {
      sampleRate: DEFAULT_FEATURES.sampleRate,
      ...(opts.signal ? { signal: opts.signal } : {}),
    })) {
      extractor.push(block);
    }
    const segments = diarizeFeatures(extractor.finish(), this.opts);
    this.opts.logger?.debug(
      { segments: segments.length, speakers: new Set(segments.map((s) => s.speaker)).size },
      "offline diarization done",
    );
    return segments;
  }
}

/** The whole offline algorithm over precomputed features (pure). */
export function diarizeFeatures(f: Features, opts: Omit<OfflineDiarizerOptions, "logger">): DiarizationSegment[] {
  const frameSeconds = f.config.hop / f.config.sampleRate;
  const speech = voiceActivity(f);
  const hop = Math.max(WINDOW_FRAMES / 2, Math.ceil(f.frames / MAX_WINDOWS));
  const windows = windowEmbeddings(f, speech, { windowFrames: Math.max(WINDOW_FRAMES, hop), hopFrames: hop });
  if (windows.length === 0) return [];

  const merges = averageLinkage(windows.map((w) => w.embedding));
  const labels = cutMerges(windows.length, merges, { threshold: WINDOW_CUT, maxClusters: MAX_WINDOW_CLUSTERS });

  // Each frame takes the label of the window whose centre is nearest, to seed the speaker models.
  const seed = new Int32Array(f.frames).fill(-1);
  const centres = windows.map((w) => (w.from + w.to) / 2);
  let wi = 0;
  for (let t = 0; t < f.frames; t++) {
    if (!speech[t]) continue;
    while (wi + 1 < centres.length && Math.abs(centres[wi + 1]! - t) <= Math.abs(centres[wi]! - t)) wi++;
    seed[t] = labels[wi]!;
  }
  const toSpeaker = mergeByGlr(f, seed, Math.max(...labels) + 1, { threshold: opts.threshold, maxClusters: opts.maxSpeakers });
  for (let t = 0; t < f.frames; t++) if (seed[t]! >= 0) seed[t] = toSpeaker[seed[t]!]!;
  const speakers = Math.max(...toSpeaker) + 1;
  const frameLabels = speakers === 1 ? seed : viterbi(f, speech, fitSpeakerModels(f, seed, speakers), SWITCH_PENALTY);
  return renumber(toSegments(frameLabels, frameSeconds));
}

/** Speakers numbered 0, 1, … in order of first appearance. */
function renumber(segments: DiarizationSegment[]): DiarizationSegment[] {
  const ids = new Map<number, number>();
  return segments.map((s) => {
    if (!ids.has(s.speaker)) ids.set(s.speaker, ids.size);
    return { ...s, speaker: ids.get(s.speaker)! };
  });
}

/** Runs of equal labels become segments; a pause under 0.5 s inside one speaker's turn is bridged. */
export function toSegments(frameLabels: Int32Array, frameSeconds: number, bridge = 0.5): DiarizationSegment[] {
  const out: DiarizationSegment[] = [];
  let t = 0;
  while (t < frameLabels.length) {
    const l = frameLabels[t]!;
    if (l < 0) {
      t++;
      continue;
    }
    let u = t;
    while (u < frameLabels.length && frameLabels[u] === l) u++;
    const start = round3(t * frameSeconds);
    const end = round3(u * frameSeconds);
    const last = out[out.length - 1];
    if (last && last.speaker === l && start - last.end < bridge) last.end = end;
    else out.push({ start, end, speaker: l });
    t = u;
  }
  return out;
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;
