-- Attempts whose worker stopped responding (killed, evicted, hung) are counted apart from the
-- step's own failures: a lost worker says nothing about the step, so it has its own budget.
alter table workflow_steps
  -- Every attempt lost since the step was (re)enqueued: the step's own attempt number is attempts - lost_attempts.
  add column lost_attempts integer not null default 0,
  -- Lost attempts since the step last ended an attempt by itself: a step that kills its worker
  -- every time ends once this passes the lost-worker budget.
  add column lost_in_a_row integer not null default 0;
