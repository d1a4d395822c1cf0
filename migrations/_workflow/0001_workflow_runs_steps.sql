-- Durable workflow runs and their steps (packages/workflow), created in the schema of each service
-- that runs workflows. Step messages go out through the kit's outbox in the same transaction.

create table workflow_runs (
  id uuid primary key,
  workflow text not null,
  -- What the run is about (e.g. a transcript id): a new run for the same subject can supersede it.
  subject text,
  status text not null default 'running' check (status in ('running', 'succeeded', 'failed', 'cancelled')),
  input jsonb not null,
  error text,
  -- `step` or `step[index]` whose failure failed the run.
  error_step text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  finished_at timestamptz
);
create index workflow_runs_created on workflow_runs (created_at desc, id desc);
create index workflow_runs_status on workflow_runs (status, created_at desc);
create index workflow_runs_subject on workflow_runs (subject, created_at desc) where subject is not null;
create index workflow_runs_workflow on workflow_runs (workflow, created_at desc);

-- One row per single step, one "group" row per fan-out step (item_count set, never enqueued)
-- and one row per fan-out item (item_index set).
create table workflow_steps (
  id bigserial primary key,
  run_id uuid not null references workflow_runs (id) on delete cascade,
  step text not null,
  item_index integer,
  item_count integer,
  -- Queue (step kind) whose consumer runs it; null for group rows.
  queue text,
  status text not null check (status in ('queued', 'running', 'succeeded', 'failed', 'cancelled')),
  attempts integer not null default 0,
  max_attempts integer not null default 1,
  -- Changed each time the step is enqueued anew (start, retry of the run); a message carrying an
  -- older token is a stale copy and is dropped, so a step never runs twice from two messages.
  token uuid not null default gen_random_uuid(),
  item jsonb,
  output jsonb,
  last_error text,
  progress jsonb,
  worker text,
  queued_at timestamptz not null default now(),
  started_at timestamptz,
  heartbeat_at timestamptz,
  finished_at timestamptz,
  next_attempt_at timestamptz,
  constraint workflow_steps_unique unique nulls not distinct (run_id, step, item_index),
  constraint workflow_steps_group check (item_count is null or (item_index is null and queue is null))
);
create index workflow_steps_active on workflow_steps (status, queued_at) where status in ('queued', 'running');
