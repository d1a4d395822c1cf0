// Frame-level speech features for the offline diarizer: MFCCs (log-mel cepstra) and log energy,
// computed incrementally from streamed 16 kHz PCM so only the features (20 floats per 10 ms)
// are kept, never the audio.
import FFT from "fft.js";

export interface FeatureConfig {
  sampleRate: number;
  /** Analysis window and hop, samples (25 ms / 10 ms at 16 kHz). */
  frameLength: number;
  hop: number;
  fftSize: number;
  melBands: number;
  /** Cepstral coefficients kept, c1..cN (c0, the loudness, is left out: it says little about who speaks). */
  coefficients: number;
  lowHz: number;
  highHz: number;
}

export const DEFAULT_FEATURES: FeatureConfig = {
  sampleRate: 16_000,
  frameLength: 400,
  hop: 160,
  fftSize: 512,
  melBands: 40,
  coefficients: 19,
  lowHz: 60,
  highHz: 7600,
};

export interface Features {
  config: FeatureConfig;
  frames: number;
  /** frames × coefficients, row-major. */
  mfcc: Float32Array;
  /** Log energy per frame (natural log of mean squared sample, samples scaled to ±1). */
  energy: Float32Array;
}

/** Accumulates features from PCM blocks of any size. */
export class FeatureExtractor {
  private readonly fft: FFT;
  private readonly window: Float64Array;
  private readonly mel: { start: number; weights: Float64Array }[];
  private readonly dct: Float64Array;
  private readonly fftIn: number[];
  private readonly fftOut: number[];
  private pending: Float64Array;
  private pendingLen = 0;
  private mfcc: Float32Array;
  private energy: Float32Array;
  private count = 0;

  constructor(readonly config: FeatureConfig = DEFAULT_FEATURES) {
    const { frameLength, fftSize, melBands, coefficients } = config;
    this.fft = new FFT(fftSize);
    this.fftIn = new Array<number>(fftSize).fill(0);
    this.fftOut = this.fft.createComplexArray() as number[];
    this.window = Float64Array.from({ length: frameLength }, (_, i) => 0.54 - 0.46 * Math.cos((2 * Math.PI * i) / (frameLength - 1)));
    this.mel = melFilterbank(config);
    this.dct = new Float64Array(coefficients * melBands);
    for (let k = 0; k < coefficients; k++) {
      for (let m = 0; m < melBands; m++) this.dct[k * melBands + m] = Math.cos((Math.PI * (k + 1) * (m + 0.5)) / melBands);
    }
    this.pending = new Float64Array(frameLength * 64);
    this.mfcc = new Float32Array(coefficients * 4096);
    this.energy = new Float32Array(4096);
  }

  push(block: Int16Array): void {
    const { frameLength, hop } = this.config;
    if (this.pendingLen + block.length > this.pending.length) {
      const bigger = new Float64Array(Math.max(this.pending.length * 2, this.pendingLen + block.length));
      bigger.set(this.pending.subarray(0, this.pendingLen));
      this.pending = bigger;
    }
    for (let i = 0; i < block.length; i++) this.pending[this.pendingLen + i] = block[i]! / 32768;
    this.pendingLen += block.length;
    let pos = 0;
    while (pos + frameLength <= this.pendingLen) {
      this.frame(this.pending.subarray(pos, pos + frameLength));
      pos += hop;
    }
    this.pending.copyWithin(0, pos, this.pendingLen);
    this.pendingLen -= pos;
  }

  finish(): Features {
    return {
      config: this.config,
      frames: this.count,
      mfcc: this.mfcc.slice(0, this.count * this.config.coefficients),
      energy: this.energy.slice(0, this.count),
    };
  }

  private frame(x: Float64Array): void {
    const { frameLength, fftSize, coefficients, melBands } = this.config;
    let e = 0;
    for (let i = 0; i < frameLength; i++) e += x[i]! * x[i]!;
    // Pre-emphasis lifts the upper formants, where voices differ most.
    for (let i = 0; i < fftSize; i++) {
      this.fftIn[i] = i < frameLength ? (x[i]! - 0.97 * (i > 0 ? x[i - 1]! : x[0]!)) * this.window[i]! : 0;
    }
    this.fft.realTransform(this.fftOut, this.fftIn);
    const logMel = new Float64Array(melBands);
    for (let m = 0; m < melBands; m++) {
      const band = this.mel[m]!;
      let s = 0;
      for (let j = 0; j < band.weights.length; j++) {
        const re = this.fftOut[2 * (band.start + j)]!;
        const im = this.fftOut[2 * (band.start + j) + 1]!;
        s += band.weights[j]! * (re * re + im * im);
      }
      logMel[m] = Math.log(s + 1e-10);
    }
    if (this.count === this.energy.length) {
      const e2 = new Float32Array(this.energy.length * 2);
      e2.set(this.energy);
      this.energy = e2;
      const m2 = new Float32Array(this.mfcc.length * 2);
      m2.set(this.mfcc);
      this.mfcc = m2;
    }
    const row = this.count * coefficients;
    for (let k = 0; k < coefficients; k++) {
      let c = 0;
      for (let m = 0; m < melBands; m++) c += this.dct[k * melBands + m]! * logMel[m]!;
      this.mfcc[row + k] = c;
    }
    this.energy[this.count] = Math.log(e / frameLength + 1e-10);
    this.count++;
  }
}

function melFilterbank(c: FeatureConfig): { start: number; weights: Float64Array }[] {
  const toMel = (hz: number) => 2595 * Math.log10(1 + hz / 700);
  const toHz = (mel: number) => 700 * (10 ** (mel / 2595) - 1);
  const lo = toMel(c.lowHz);
  const hi = toMel(c.highHz);
  const edges = Array.from({ length: c.melBands + 2 }, (_, i) => toHz(lo + ((hi - lo) * i) / (c.melBands + 1)));
  const binHz = c.sampleRate / c.fftSize;
  return Array.from({ length: c.melBands }, (_, m) => {
    const [a, b, z] = [edges[m]!, edges[m + 1]!, edges[m + 2]!];
    const start = Math.ceil(a / binHz);
    const end = Math.floor(z / binHz);
    const weights = new Float64Array(Math.max(0, end - start + 1));
    for (let k = start; k <= end; k++) {
      const f = k * binHz;
      weights[k - start] = f <= b ? (f - a) / (b - a) : (z - f) / (z - b);
    }
    return { start, weights };
  });
}
