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
  /** Every object of a transcript (for deletion). */
  prefix: (transcriptId: string) => `${transcriptId}/`,
};
