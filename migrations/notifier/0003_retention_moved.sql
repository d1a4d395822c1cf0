-- Retention is decided by the transcription service now (the owner of transcripts): the notifier's
-- run log and its "announced" marks go.
drop table retention_run;
drop index idx_transcript_retention;
alter table transcript drop column expired_at;
