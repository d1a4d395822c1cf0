-- The notifier reads transcripts through the read model (projection.get decides READ) and decides
-- nothing from their facts (retention and share modes are transcription's): its copy goes.
drop table transcript;
