// Prometheus metrics of the meetings service (the kit's process registry: /metrics shows them).
import { counter } from "@scribe/kit";

/** Meetings a processing round skipped because another worker held them (behaviour §5: counted). */
export const meetingsProcessingSkipped = counter(
  "scribe_meetings_processing_skipped_total",
  "meetings a processing round skipped because another worker held them",
);
