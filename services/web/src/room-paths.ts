// Where a room's page is. A room's address is `/<room name>` (UI_BASE_URL/<name> is also what calendar
// events must name to match the room, behaviour-rooms §ICS), but room names are free (api.md sets no
// rule besides uniqueness), so a room may be called like one of the app's pages or a path the
// gateway keeps for itself. Those stay what they are, and every room is also at `/rooms/<name>`.

/** First path segments that are not rooms: the app's pages, then what the gateway serves itself. */
export const TAKEN_PATHS: ReadonlySet<string> = new Set([
  "signin",
  "auth",
  "upload",
  "live",
  "transcripts",
  "rooms",
  "api-keys",
  "assets",
  "v1",
  "docs",
  "openapi.json",
  "health",
  "metrics",
  "app-config.json",
  "index.html",
]);

/** The room page's path: `/<name>`, or `/rooms/<name>` when `/<name>` is something else. */
export function roomPath(name: string): string {
  return TAKEN_PATHS.has(name) ? `/rooms/${encodeURIComponent(name)}` : `/${encodeURIComponent(name)}`;
}
