// The transcript's <audio> element, on a media-token address (audio-link.ts). The token expires
// (MEDIA_TOKEN_TTL_SECONDS, 15 minutes by default) while the page stays open, and the browser asks
// for more of a long recording as it plays or seeks: when such a request is refused, the player gets
// a fresh address and carries on from where it was, playing if it was.
import { useEffect, useRef, useState } from "preact/hooks";
import { audioUrl } from "./audio-link";

interface Props {
  id: string;
  /** The element once it exists (the word list and the waveform follow and move it). */
  onPlayer: (player: HTMLAudioElement | null) => void;
}

export function AudioPlayer({ id, onPlayer }: Props) {
  const [src, setSrc] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  /** Whether the current address has loaded: an address that never did is not retried (no loop). */
  const loaded = useRef(false);
  /** Where to carry on once a fresh address has loaded. */
  const resumeAt = useRef<{ time: number; playing: boolean } | null>(null);

  async function load(resume: { time: number; playing: boolean } | null, isCurrent: () => boolean = () => true) {
    const link = await audioUrl(id);
    if (!isCurrent()) return;
    if ("error" in link) return setProblem(`The recording cannot be played: ${link.error}`);
    loaded.current = false;
    resumeAt.current = resume;
    setProblem(null);
    setSrc(link.url);
  }

  useEffect(() => {
    let current = true;
    setSrc(null);
    void load(null, () => current);
    return () => {
      current = false;
    };
  }, [id]);

  if (problem) return <p role="alert">{problem}</p>;
  if (!src) return null;
  return (
    <audio
      ref={onPlayer}
      controls
      preload="metadata"
      src={src}
      onLoadedMetadata={(e) => {
        loaded.current = true;
        const resume = resumeAt.current;
        resumeAt.current = null;
        if (!resume) return;
        const player = e.currentTarget;
        player.currentTime = resume.time;
        if (resume.playing) player.play().catch(() => undefined);
      }}
      onError={(e) => {
        const player = e.currentTarget;
        if (!loaded.current) return setProblem("The recording cannot be played.");
        void load({ time: player.currentTime, playing: !player.paused });
      }}
    />
  );
}
