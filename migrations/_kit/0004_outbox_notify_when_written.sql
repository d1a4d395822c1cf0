-- Wake the relay only when a statement did write events. The trigger is per statement, so it fired
-- for an insert that wrote no row too: a pipeline write guarded by the row's version (transcription's
-- persistIfUnchanged) that lost to another writer inserts its events from an empty update, and each
-- such miss woke every relay of the schema for nothing.
create or replace function outbox_notify() returns trigger language plpgsql as $$
begin
  if exists (select 1 from written) then
    perform pg_notify(tg_table_schema || '_outbox', '');
  end if;
  return null;
end $$;
drop trigger outbox_notify on outbox;
create trigger outbox_notify after insert on outbox referencing new table as written
  for each statement execute function outbox_notify();
