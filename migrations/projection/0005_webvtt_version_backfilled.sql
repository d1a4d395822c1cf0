-- transcript.updated carries the WebVTT only when it changed: the read model keeps the WebVTT of the
-- highest version that carried one (a late, older state still brings its WebVTT). Existing rows took
-- their WebVTT with their state, so their WebVTT version is their state version (rewrites data).
alter table transcript add column webvtt_version integer not null default 0;
update transcript set webvtt_version = state_version;
