// Decisions and next steps the summariser found (the transcript's `action_items`).
import type { Schemas } from "@scribe/client";

export type ActionItems = NonNullable<Schemas["GetTranscriptWithText"]["action_items"]>;

export function ActionItemsView({ items }: { items: ActionItems | null | undefined }) {
  if (!items || (items.decisions.length === 0 && items.next_steps.length === 0)) return null;
  return (
    <section class="action-items">
      <h2>Action items</h2>
      {items.next_steps.length > 0 && (
        <>
          <h3>Next steps</h3>
          <ul>
            {items.next_steps.map((step, i) => (
              <li key={i}>
                {step.task}
                {step.assigned_to && <strong> — {step.assigned_to}</strong>}
                {step.deadline && <small> (by {step.deadline})</small>}
              </li>
            ))}
          </ul>
        </>
      )}
      {items.decisions.length > 0 && (
        <>
          <h3>Decisions</h3>
          <ul>
            {items.decisions.map((decision, i) => (
              <li key={i}>
                {decision.decision}
                {decision.decided_by && <small> — {decision.decided_by}</small>}
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
