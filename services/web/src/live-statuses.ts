// Status changes of the listed transcripts as they happen: one user-events socket (/v1/events,
// TRANSCRIPT_STATUS) when signed in; without an account (AUTH_BACKEND=none, public mode) there are
// no user events, so each listed transcript still in progress gets its own transcript socket.
import { useEffect, useRef, useState } from "preact/hooks";
import { session } from "./api";
import { FINISHED, transcriptEvents, userEvents } from "./events";

/**
 * `onMissed`: the user socket reconnected after a drop, and changes made meanwhile were not sent (the
 * user socket replays nothing): the list should load again.
 */
export function useLiveStatuses(items: readonly { id: string; status: string }[], onMissed?: () => void): Record<string, string> {
  const [statuses, setStatuses] = useState<Record<string, string>>({});
  const signedIn = session.token() !== null;
  const missed = useRef(onMissed);
  missed.current = onMissed;

  useEffect(() => {
    if (!signedIn) return;
    return userEvents(
      (e) => {
        const { id, value } = e.data;
        if (e.event === "TRANSCRIPT_STATUS" && typeof id === "string" && typeof value === "string")
          setStatuses((s) => ({ ...s, [id]: value }));
      },
      {
        onReconnect: () => {
          setStatuses({});
          missed.current?.();
        },
      },
    );
  }, [signedIn]);

  const inProgress = signedIn
    ? ""
    : items
        .filter((t) => !FINISHED.has(t.status))
        .map((t) => t.id)
        .join(",");
  useEffect(() => {
    if (!inProgress) return;
    const closers = inProgress.split(",").map((id) =>
      transcriptEvents(id, (e) => {
        if (e.event === "STATUS" && typeof e.data.value === "string") setStatuses((s) => ({ ...s, [id]: e.data.value as string }));
      }),
    );
    return () => closers.forEach((close) => close());
  }, [inProgress]);

  return statuses;
}
