// Sends a file to POST /v1/transcripts/{id}/record/upload in chunks sized to the gateway's limits,
// one XMLHttpRequest each so the browser reports upload progress (fetch cannot yet).
import { session, sessionExpired } from "./api";
import type { AppConfig } from "./app-config";

/** Room for the multipart framing around a chunk within UPLOAD_MAX_CHUNK_BYTES. */
const FRAMING_BYTES = 16 * 1024;
/** Small enough that a lost connection costs little, large enough that requests stay few. */
const PREFERRED_CHUNK_BYTES = 8 * 1024 ** 2;

export class UploadError extends Error {}

export interface ChunkPlan {
  chunkBytes: number;
  totalChunks: number;
}

/** How to cut `size` bytes; an UploadError naming the limit when the file cannot fit. */
export function planChunks(size: number, limits: AppConfig["upload"]): ChunkPlan {
  const chunkBytes = Math.max(1, Math.min(PREFERRED_CHUNK_BYTES, limits.max_chunk_bytes - FRAMING_BYTES));
  const totalChunks = Math.max(1, Math.ceil(size / chunkBytes));
  if (totalChunks > limits.max_chunks) {
    throw new UploadError(`This file is too large: this Scribe takes files up to ${formatBytes(chunkBytes * limits.max_chunks)}.`);
  }
  return { chunkBytes, totalChunks };
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ["KB", "MB", "GB", "TB"];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[u]}`;
}

/** The API's `detail` from an XHR answer, or a sentence for the status. */
function failure(xhr: XMLHttpRequest): UploadError {
  let detail: unknown;
  try {
    detail = (JSON.parse(xhr.responseText) as { detail?: unknown }).detail;
  } catch {
    detail = undefined;
  }
  if (typeof detail === "string") return new UploadError(detail);
  if (xhr.status === 413) return new UploadError("This file is too large for this Scribe.");
  if (xhr.status === 0) return new UploadError("The connection was lost during the upload. Please try again.");
  return new UploadError(`The upload failed (HTTP ${xhr.status}).`);
}

function sendChunk(url: string, chunk: Blob, filename: string, onProgress: (sent: number) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", url);
    const token = session.token();
    if (token) xhr.setRequestHeader("authorization", `Bearer ${token}`);
    xhr.upload.onprogress = (e) => onProgress(Math.min(e.loaded, chunk.size));
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) return resolve();
      if (xhr.status === 401 && token) sessionExpired();
      reject(failure(xhr));
    };
    xhr.onerror = () => reject(failure(xhr));
    const form = new FormData();
    form.append("chunk", chunk, filename);
    xhr.send(form);
  });
}

/** Uploads every chunk in order; `onProgress(fraction)` from 0 to 1. */
export async function uploadFile(
  transcriptId: string,
  file: File,
  limits: AppConfig["upload"],
  onProgress: (fraction: number) => void,
): Promise<void> {
  const { chunkBytes, totalChunks } = planChunks(file.size, limits);
  for (let n = 0; n < totalChunks; n++) {
    const start = n * chunkBytes;
    const chunk = file.slice(start, Math.min(file.size, start + chunkBytes));
    const query = new URLSearchParams({ chunk_number: String(n), total_chunks: String(totalChunks) });
    const url = `/v1/transcripts/${encodeURIComponent(transcriptId)}/record/upload?${query}`;
    await sendChunk(url, chunk, file.name, (sent) => onProgress((start + sent) / Math.max(1, file.size)));
  }
  onProgress(1);
}
