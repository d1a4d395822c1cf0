// Object keys in the transcripts bucket, shared by the pipelines (writers) and media routes (readers).
export const transcriptKeys = {
  /** Mixed/processed audio served by GET /v1/transcripts/{id}/audio/mp3. */
  mp3: (transcriptId: string) => `${transcriptId}/audio.mp3`,
  /** Waveform peaks as a JSON array of numbers (no NaN). */
  waveform: (transcriptId: string) => `${transcriptId}/audio.json`,
  /** An uploaded file once assembled from its chunks. */
  upload: (transcriptId: string, ext: string) => `${transcriptId}/upload.${ext}`,
  /** Upload chunks while they arrive. */
  uploadChunk: (transcriptId: string, chunk: number, ext: string) => `${transcriptId}/upload_${chunk}.${ext}`,
  /** Working files of a pipeline run (aligned tracks, converted audio); removed when the run ends. */
  work: (transcriptId: string, runId: string, name: string) => `${transcriptId}/work/${runId}/${name}`,
  /** A live recording's audio as it arrives: PCM s16le 16 kHz mono segments in sequence order. */
  liveSegment: (transcriptId: string, sessionId: string, seq: number) =>
    `${transcriptId}/live/${sessionId}/${String(seq).padStart(8, "0")}.pcm`,
  liveSegments: (transcriptId: string, sessionId: string) => `${transcriptId}/live/${sessionId}/`,
  /** A finished live recording assembled from its segments (the file pipeline's input). */
  liveAudio: (transcriptId: string, sessionId: string) => `${transcriptId}/live/${sessionId}.wav`,
  /** Every object of a transcript (for deletion). */
  prefix: (transcriptId: string) => `${transcriptId}/`,
};
