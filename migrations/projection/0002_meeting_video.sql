-- Meetings as far as a transcript's detail needs them: the composed cloud video of platform A
-- (api.md §2.10: has_cloud_video / cloud_video_duration). Newer meeting versions win.
create table meeting (
  id text primary key,
  version integer not null,
  composed_video_key text,
  composed_video_duration integer
);

-- Computed from the meeting table at read time now.
alter table transcript drop column has_cloud_video, drop column cloud_video_duration;
