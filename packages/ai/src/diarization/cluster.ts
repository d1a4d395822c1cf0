// Pure numeric pieces of the offline diarizer: energy voice activity, window embeddings,
// average-linkage clustering with a speaker-count estimate, and Viterbi resegmentation.
import type { Features } from "./features";

/** Frames that carry speech: log energy above a threshold between the noise floor and loud speech. */
export function voiceActivity(f: Features, opts: { minSpeechFrames?: number; maxGapFrames?: number } = {}): Uint8Array {
  const sorted = Float32Array.from(f.energy).sort();
  const pct = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
  const floor = pct(0.05);
  const loud = pct(0.95);
  // Speech sits far above digital silence and well above room noise; 30% of the way up works for both.
  const threshold = floor + 0.3 * (loud - floor);
  const speech = new Uint8Array(f.frames);
  for (let i = 0; i < f.frames; i++) speech[i] = f.energy[i]! > threshold ? 1 : 0;
  fillRuns(speech, 0, opts.maxGapFrames ?? 30, 1); // pauses inside a sentence are speech
  fillRuns(speech, 1, opts.minSpeechFrames ?? 10, 0); // clicks are not
  return speech;
}

/** Replace runs of `value` shorter than `maxLen` that sit between other values with `replacement`. */
function fillRuns(x: Uint8Array, value: number, maxLen: number, replacement: number): void {
  let i = 0;
  while (i < x.length) {
    if (x[i] !== value) {
      i++;
      continue;
    }
    let j = i;
    while (j < x.length && x[j] === value) j++;
    if (i > 0 && j < x.length && j - i < maxLen) x.fill(replacement, i, j);
    i = j;
  }
}

export interface Window {
  /** First and one-past-last frame. */
  from: number;
  to: number;
  embedding: Float64Array;
}

/**
 * Mean and standard deviation of the cepstra over the speech frames of sliding windows; windows
 * that are mostly silence are skipped. The embeddings are standardised per dimension over the file.
 */
export function windowEmbeddings(f: Features, speech: Uint8Array, opts: { windowFrames: number; hopFrames: number }): Window[] {
  const d = f.config.coefficients;
  const windows: Window[] = [];
  for (let from = 0; from < f.frames; from += opts.hopFrames) {
    const to = Math.min(f.frames, from + opts.windowFrames);
    let n = 0;
    const sum = new Float64Array(d);
    const sq = new Float64Array(d);
    for (let t = from; t < to; t++) {
      if (!speech[t]) continue;
      n++;
      for (let k = 0; k < d; k++) {
        const v = f.mfcc[t * d + k]!;
        sum[k]! += v;
        sq[k]! += v * v;
      }
    }
    if (n < opts.windowFrames * 0.5) continue;
    const e = new Float64Array(2 * d);
    for (let k = 0; k < d; k++) {
      const mean = sum[k]! / n;
      e[k] = mean;
      e[d + k] = Math.sqrt(Math.max(0, sq[k]! / n - mean * mean));
    }
    windows.push({ from, to, embedding: e });
    if (to === f.frames) break;
  }
  standardise(windows.map((w) => w.embedding));
  return windows;
}

function standardise(vectors: Float64Array[]): void {
  if (vectors.length === 0) return;
  const d = vectors[0]!.length;
  for (let k = 0; k < d; k++) {
    let s = 0;
    let s2 = 0;
    for (const v of vectors) {
      s += v[k]!;
      s2 += v[k]! * v[k]!;
    }
    const mean = s / vectors.length;
    const sd = Math.sqrt(Math.max(1e-12, s2 / vectors.length - mean * mean));
    for (const v of vectors) v[k] = (v[k]! - mean) / sd;
  }
}

export function cosineDistance(a: Float64Array, b: Float64Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return 1 - dot / (Math.sqrt(na * nb) || 1);
}

export interface Merge {
  a: number;
  b: number;
  distance: number;
}

/**
 * Average-linkage agglomerative clustering by the nearest-neighbour chain (O(n²) time and memory).
 * Returns the n-1 merges sorted by distance; cluster ids are point indices (a merge keeps `a`).
 */
export function averageLinkage(vectors: readonly Float64Array[]): Merge[] {
  const n = vectors.length;
  const dist = new Float32Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const d = cosineDistance(vectors[i]!, vectors[j]!);
      dist[i * n + j] = d;
      dist[j * n + i] = d;
    }
  }
  const size = new Float64Array(n).fill(1);
  const active = new Uint8Array(n).fill(1);
  let remaining = n;
  const merges: Merge[] = [];
  const chain: number[] = [];
  while (remaining > 1) {
    if (chain.length === 0) chain.push(active.indexOf(1));
    const a = chain[chain.length - 1]!;
    const prev = chain.length >= 2 ? chain[chain.length - 2]! : -1;
    let b = prev;
    let best = prev >= 0 ? dist[a * n + prev]! : Number.POSITIVE_INFINITY;
    for (let k = 0; k < n; k++) {
      if (!active[k] || k === a) continue;
      const d = dist[a * n + k]!;
      if (d < best) {
        best = d;
        b = k;
      }
    }
    if (b === prev) {
      chain.pop();
      chain.pop();
      merges.push({ a: Math.min(a, b), b: Math.max(a, b), distance: best });
      const keep = Math.min(a, b);
      const drop = Math.max(a, b);
      for (let k = 0; k < n; k++) {
        if (!active[k] || k === keep || k === drop) continue;
        const d = (size[keep]! * dist[keep * n + k]! + size[drop]! * dist[drop * n + k]!) / (size[keep]! + size[drop]!);
        dist[keep * n + k] = d;
        dist[k * n + keep] = d;
      }
      size[keep]! += size[drop]!;
      active[drop] = 0;
      remaining--;
    } else {
      chain.push(b);
    }
  }
  return merges.sort((x, y) => x.distance - y.distance);
}

/**
 * Cut the dendrogram: apply merges closer than `threshold`, then keep merging until at most
 * `maxClusters` remain. Labels are renumbered 0.. by first appearance.
 */
export function cutMerges(n: number, merges: readonly Merge[], opts: { threshold: number; maxClusters: number }): number[] {
  const parent = Array.from({ length: n }, (_, i) => i);
  const find = (x: number): number => {
    while (parent[x] !== x) {
      parent[x] = parent[parent[x]!]!;
      x = parent[x]!;
    }
    return x;
  };
  let clusters = n;
  for (const m of merges) {
    if (m.distance > opts.threshold && clusters <= opts.maxClusters) break;
    const ra = find(m.a);
    const rb = find(m.b);
    if (ra !== rb) {
      parent[rb] = ra;
      clusters--;
    }
  }
  const ids = new Map<number, number>();
  return Array.from({ length: n }, (_, i) => {
    const r = find(i);
    if (!ids.has(r)) ids.set(r, ids.size);
    return ids.get(r)!;
  });
}

/** Diagonal Gaussian per speaker over the cepstra of the frames assigned to it. */
export interface SpeakerModel {
  mean: Float64Array;
  variance: Float64Array;
  logNorm: number;
}

export function fitSpeakerModels(f: Features, frameLabels: Int32Array, speakers: number): SpeakerModel[] {
  const d = f.config.coefficients;
  return Array.from({ length: speakers }, (_, s) => {
    const sum = new Float64Array(d);
    const sq = new Float64Array(d);
    let n = 0;
    for (let t = 0; t < f.frames; t++) {
      if (frameLabels[t] !== s) continue;
      n++;
      for (let k = 0; k < d; k++) {
        const v = f.mfcc[t * d + k]!;
        sum[k]! += v;
        sq[k]! += v * v;
      }
    }
    const mean = sum.map((x) => x / Math.max(1, n));
    const variance = sq.map((x, k) => Math.max(1e-3, x / Math.max(1, n) - mean[k]! * mean[k]!));
    const logNorm = -0.5 * variance.reduce((acc, v) => acc + Math.log(2 * Math.PI * v), 0);
    return { mean, variance, logNorm };
  });
}

/**
 * Most likely speaker per speech frame under the models, with `switchPenalty` (nats) charged for
 * every change of speaker, so turns are not chopped by single odd frames. Non-speech frames get -1.
 */
export function viterbi(f: Features, speech: Uint8Array, models: readonly SpeakerModel[], switchPenalty: number): Int32Array {
  const d = f.config.coefficients;
  const K = models.length;
  const labels = new Int32Array(f.frames).fill(-1);
  const speechFrames: number[] = [];
  for (let t = 0; t < f.frames; t++) if (speech[t]) speechFrames.push(t);
  if (K === 0 || speechFrames.length === 0) return labels;
  const back = new Int32Array(speechFrames.length * K);
  let score = new Float64Array(K);
  let next = new Float64Array(K);
  const loglik = (t: number, m: SpeakerModel) => {
    let s = m.logNorm;
    for (let k = 0; k < d; k++) {
      const diff = f.mfcc[t * d + k]! - m.mean[k]!;
      s -= (0.5 * diff * diff) / m.variance[k]!;
    }
    return s;
  };
  for (let j = 0; j < K; j++) score[j] = loglik(speechFrames[0]!, models[j]!);
  for (let i = 1; i < speechFrames.length; i++) {
    const t = speechFrames[i]!;
    let bestPrev = 0;
    for (let j = 1; j < K; j++) if (score[j]! > score[bestPrev]!) bestPrev = j;
    for (let j = 0; j < K; j++) {
      const stay = score[j]!;
      const change = score[bestPrev]! - switchPenalty;
      const from = stay >= change ? j : bestPrev;
      back[i * K + j] = from;
      next[j] = Math.max(stay, change) + loglik(t, models[j]!);
    }
    [score, next] = [next, score];
  }
  let state = 0;
  for (let j = 1; j < K; j++) if (score[j]! > score[state]!) state = j;
  for (let i = speechFrames.length - 1; i >= 0; i--) {
    labels[speechFrames[i]!] = state;
    state = back[i * K + state]!;
  }
  return labels;
}

interface GaussStats {
  n: number;
  sum: Float64Array;
  sq: Float64Array;
}

function logDetDiag(s: GaussStats): number {
  let r = 0;
  for (let k = 0; k < s.sum.length; k++) {
    const m = s.sum[k]! / s.n;
    r += Math.log(Math.max(1e-3, s.sq[k]! / s.n - m * m));
  }
  return r;
}

/**
 * Per-frame generalised likelihood ratio of "two speakers" over "one speaker" for two clusters
 * under diagonal Gaussians. Unlike window distances it does not depend on the file's spread, so
 * the same threshold tells one speaker from two in any recording.
 */
export function glrPerFrame(a: GaussStats, b: GaussStats): number {
  const n = a.n + b.n;
  const joint = { n, sum: a.sum.map((x, k) => x + b.sum[k]!), sq: a.sq.map((x, k) => x + b.sq[k]!) };
  return 0.5 * (logDetDiag(joint) - (a.n / n) * logDetDiag(a) - (b.n / n) * logDetDiag(b));
}

/**
 * Greedily merge the two clusters of frames most alike while their GLR is under `threshold` or
 * there are more than `maxClusters`. Returns the new label of each old label (0.. in order).
 */
export function mergeByGlr(
  f: Features,
  frameLabels: Int32Array,
  clusters: number,
  opts: { threshold: number; maxClusters: number },
): number[] {
  const d = f.config.coefficients;
  const stats: (GaussStats & { members: number[] })[] = Array.from({ length: clusters }, (_, c) => ({
    n: 0,
    sum: new Float64Array(d),
    sq: new Float64Array(d),
    members: [c],
  }));
  for (let t = 0; t < f.frames; t++) {
    const l = frameLabels[t]!;
    if (l < 0) continue;
    const s = stats[l]!;
    s.n++;
    for (let k = 0; k < d; k++) {
      const v = f.mfcc[t * d + k]!;
      s.sum[k]! += v;
      s.sq[k]! += v * v;
    }
  }
  let live = stats.filter((s) => s.n > 0);
  while (live.length > 1) {
    let bi = 0;
    let bj = 1;
    let best = Number.POSITIVE_INFINITY;
    for (let i = 0; i < live.length; i++) {
      for (let j = i + 1; j < live.length; j++) {
        const g = glrPerFrame(live[i]!, live[j]!);
        if (g < best) [best, bi, bj] = [g, i, j];
      }
    }
    if (best >= opts.threshold && live.length <= opts.maxClusters) break;
    const a = live[bi]!;
    const b = live[bj]!;
    const merged = {
      n: a.n + b.n,
      sum: a.sum.map((x, k) => x + b.sum[k]!),
      sq: a.sq.map((x, k) => x + b.sq[k]!),
      members: [...a.members, ...b.members],
    };
    live = [...live.filter((_, i) => i !== bi && i !== bj), merged];
  }
  const map = new Array<number>(clusters).fill(0);
  live.sort((x, y) => Math.min(...x.members) - Math.min(...y.members)).forEach((s, i) => s.members.forEach((m) => (map[m] = i)));
  return map;
}
