// Which calendar events belong to a room (decisions, Calendar): the event's location equals the
// room's UI URL (UI_BASE_URL + "/" + room name), compared after trimming, ignoring a trailing slash
// and letter case. Equality, not containment: room `team` does not pick up `team-2`'s events (the
// reference's substring test does, quirk 14), and a URL in the description does not count.

/** The room's page in the web app, as people paste it into an event's location. */
export function roomUiUrl(uiBaseUrl: string, roomName: string): string {
  return `${uiBaseUrl.replace(/\/+$/, "")}/${roomName}`;
}

/** The form both sides are compared in. */
export function normalizeLocation(value: string): string {
  return value.trim().replace(/\/+$/, "").toLowerCase();
}

export function locationMatchesRoom(location: string | null, roomUrl: string): boolean {
  if (location === null) return false;
  const wanted = normalizeLocation(roomUrl);
  return wanted !== "" && normalizeLocation(location) === wanted;
}
