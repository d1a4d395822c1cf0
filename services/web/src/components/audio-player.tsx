// The transcript's <audio> element, on a media-token address (audio-link.ts). On a page opened
// directly, the element the entry started loading early (transcript-prefetch.ts) is taken as it is,
// so its metadata may well be there before the page is. The token expires (MEDIA_TOKEN_TTL_SECONDS,
// 15 minutes by default) while the page stays open, and the browser asks for more of a long recording
// as it plays or seeks: when such a request is refused, the player gets a fresh address and carries
// on from where it was, playing if it was.
import { useEffect, useRef, useState } from "preact/hooks";
import { takeEarlyPlayer } from "../transcript-prefetch";
import { audioUrl } from "./audio-link";

interface Props {
  id: string;
  /** The element once it is on the page (the word list and the waveform follow and move it). */
  onPlayer: (player: HTMLAudioElement | null) => void;
}

interface Resume {
  time: number;
  playing: boolean;
}

export function AudioPlayer({ id, onPlayer }: Props) {
  const holder = useRef<HTMLDivElement>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const shown = useRef(onPlayer);
  shown.current = onPlayer;

  useEffect(() => {
    let current = true;
    let player: HTMLAudioElement | null = null;
    /** Whether the current address has loaded: an address that never did is not retried (no loop). */
    let loaded = false;
    /** Where to carry on once a fresh address has loaded. */
    let resumeAt: Resume | null = null;

    async function load(on: HTMLAudioElement, resume: Resume | null) {
      const link = await audioUrl(id);
      if (!current) return;
      if ("error" in link) return setProblem(`The recording cannot be played: ${link.error}`);
      loaded = false;
      resumeAt = resume;
      setProblem(null);
      on.src = link.url;
    }
    function onLoadedMetadata(this: HTMLAudioElement) {
      loaded = true;
      const resume = resumeAt;
      resumeAt = null;
      if (!resume) return;
      this.currentTime = resume.time;
      if (resume.playing) this.play().catch(() => undefined);
    }
    function onError(this: HTMLAudioElement) {
      if (!loaded) return setProblem("The recording cannot be played.");
      void load(this, { time: this.currentTime, playing: !this.paused });
    }

    setProblem(null);
    void takeEarlyPlayer(id).then((early) => {
      if (!current) return early?.removeAttribute("src");
      const audio = early ?? new Audio();
      player = audio;
      audio.controls = true;
      audio.preload = "metadata";
      audio.addEventListener("loadedmetadata", onLoadedMetadata);
      audio.addEventListener("error", onError);
      holder.current?.append(audio);
      shown.current(audio);
      if (!early) return load(audio, null);
      // What the early element did before the page took it.
      loaded = audio.readyState >= HTMLMediaElement.HAVE_METADATA;
      if (audio.error) onError.call(audio);
    });
    return () => {
      current = false;
      if (!player) return;
      player.removeEventListener("loadedmetadata", onLoadedMetadata);
      player.removeEventListener("error", onError);
      player.pause();
      player.removeAttribute("src");
      player.remove();
      shown.current(null);
    };
  }, [id]);

  return (
    <>
      {problem && <p role="alert">{problem}</p>}
      <div ref={holder} class="audio-player" hidden={!!problem} />
    </>
  );
}
