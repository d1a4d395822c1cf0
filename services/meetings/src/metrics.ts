// Prometheus metrics of the meetings service (the kit's process registry: /metrics shows them).
import { counter } from "@scribe/kit";

/** Meetings a processing round skipped because another worker held them (behaviour §5: counted). */
export const meetingsProcessingSkipped = counter(
  "scribe_meetings_processing_skipped_total",
  "meetings a processing round skipped because another worker held them",
);

/** Meeting creates that found another create of the same room under way and waited for it. */
export const meetingCreationWaits = counter(
  "scribe_meetings_creation_waits_total",
  "meeting creates that waited for another create in the same room",
);
