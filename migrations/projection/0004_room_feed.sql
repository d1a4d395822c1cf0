-- The rooms' feed position each room change carried (room events' `feed_seq`): the highest one the
-- read model applied tells readers (list, search) how far room changes — names, sharing — have come.
alter table room add column feed_seq bigint;
create index idx_room_feed_seq on room (feed_seq);
