// Opting a service into the runner: its migrations are the kit's tables, the workflow tables, then its own.
import { serviceMigrations, type Migration } from "@scribe/kit";

/** Folder under migrations/ with the workflow tables; name it in a service definition's `sharedMigrations`. */
export const WORKFLOW_MIGRATIONS = "_workflow";

/** The migration list of a service that runs workflows (what `startService` and `scribe migrate` apply). */
export function workflowServiceMigrations(service: string, opts: { root?: string } = {}): Migration[] {
  return serviceMigrations(service, { ...opts, shared: [WORKFLOW_MIGRATIONS] });
}
