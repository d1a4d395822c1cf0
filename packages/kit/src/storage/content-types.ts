// Content types by file extension, for drivers that do not store one (local) and as the default on upload.
const CONTENT_TYPES: Record<string, string> = {
  mp3: "audio/mpeg",
  wav: "audio/wav",
  webm: "audio/webm",
  mp4: "video/mp4",
  m4a: "audio/mp4",
  ogg: "audio/ogg",
  json: "application/json",
  zip: "application/zip",
  txt: "text/plain",
  vtt: "text/vtt",
};

export function contentTypeOf(key: string): string | null {
  return CONTENT_TYPES[key.split(".").pop()?.toLowerCase() ?? ""] ?? null;
}
