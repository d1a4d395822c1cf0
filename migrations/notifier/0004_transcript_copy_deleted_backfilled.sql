-- The transcript copy takes kit's entity-copy shape (a `deleted` tombstone flag beside the final
-- destroyed_at); copies already destroyed are marked deleted.
alter table transcript add column deleted boolean not null default false;
update transcript set deleted = true where destroyed_at is not null;
