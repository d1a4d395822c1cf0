// Follows an <audio> element's position: every animation frame while it plays (so the highlighted word
// and the playhead move smoothly; `timeupdate` fires only ~4 times a second), and once on every seek,
// pause and load.
import { useEffect, useRef } from "preact/hooks";

export function usePlayerClock(player: HTMLAudioElement | null, onTime: (seconds: number) => void): void {
  const latest = useRef(onTime);
  latest.current = onTime;
  useEffect(() => {
    if (!player) return;
    let frame = 0;
    const tell = () => latest.current(player.currentTime);
    const loop = () => {
      tell();
      frame = requestAnimationFrame(loop);
    };
    const start = () => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(loop);
    };
    const stop = () => {
      cancelAnimationFrame(frame);
      tell();
    };
    const once = ["seeked", "timeupdate", "loadedmetadata"] as const;
    player.addEventListener("play", start);
    player.addEventListener("pause", stop);
    player.addEventListener("ended", stop);
    for (const name of once) player.addEventListener(name, tell);
    tell();
    if (!player.paused) start();
    return () => {
      cancelAnimationFrame(frame);
      player.removeEventListener("play", start);
      player.removeEventListener("pause", stop);
      player.removeEventListener("ended", stop);
      for (const name of once) player.removeEventListener(name, tell);
    };
  }, [player]);
}

/** Jump to `seconds` and play from there (a click on a word). */
export function playFrom(player: HTMLAudioElement | null, seconds: number): void {
  if (!player) return;
  player.currentTime = seconds;
  // A browser that refuses autoplay still has the position set; the user presses play.
  player.play().catch(() => undefined);
}
