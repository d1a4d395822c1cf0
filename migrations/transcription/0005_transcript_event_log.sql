-- The current run's event log in a table of its own (issue 20): in a jsonb column every append read
-- the whole log to refuse a duplicate and rewrote it (TOAST included), so a long run cost O(n²) in
-- its events. A row per entry costs an append what it adds; the duplicate rule probes an index.
create table transcript_event (
  -- Deleting a transcript deletes its log (destroy, retention).
  transcript_id text not null references transcript (id) on delete cascade,
  -- The log's order: entries of one transcript are written under its row lock, so positions taken
  -- from one sequence follow the order in which they were appended.
  position bigint generated always as identity,
  -- The run that appended the entry (transcript.event.appended's run_id).
  run_id text,
  event text not null,
  data jsonb not null,
  primary key (transcript_id, position)
);
-- The duplicate rule (an entry equal to one already logged is not appended again) looks an entry up
-- by its content: a hash, since a WAVEFORM's data outgrows a btree entry. Not unique: a run's STATUS
-- may come back to a value it had (processing, error, processing).
create index transcript_event_content on transcript_event (transcript_id, event, md5(data::text));

insert into transcript_event (transcript_id, run_id, event, data)
select t.id, t.current_run_id, e.entry ->> 'event', e.entry -> 'data'
from transcript t
  cross join lateral jsonb_array_elements(t.events) with ordinality as e(entry, n)
order by t.id, e.n;

alter table transcript drop column events;
