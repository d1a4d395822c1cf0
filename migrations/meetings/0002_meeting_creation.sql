-- Meeting creation in a room is claimed, done on the platform with no transaction open, then
-- recorded (issue 14 item 6): a row per room while one create asks the platform. Others wait for it
-- to go (then reuse the meeting it recorded, or claim in turn); one whose lease ran out belongs to a
-- replica that stopped mid-creation and is taken over. Leases use the database's clock, shared by
-- every replica.
create table meeting_creation (
  room_id text primary key,
  claim_token text not null,
  lease_until timestamptz not null
);
