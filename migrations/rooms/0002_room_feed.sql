-- The rooms' feed position (docs/ARCHITECTURE.md, "Consistency: read-your-writes"): one counter that
-- every room change advances inside its transaction and carries in its event (`feed_seq`). Its row
-- lock serialises room changes, so positions are taken in commit order and a reader that reached
-- position N has applied every room change up to N (room changes are rare; the lock is short).
create table room_feed (
  singleton boolean primary key default true check (singleton),
  position bigint not null
);
insert into room_feed (singleton, position) values (true, 0);
