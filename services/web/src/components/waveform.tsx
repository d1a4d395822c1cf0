// The recording's loudness over time (the transcript socket's WAVEFORM event), with the part already played in the
// accent colour and a playhead. A click (or the arrow keys) moves the audio there.
import { useMemo, useRef, useState } from "preact/hooks";
import { formatDuration } from "../pages/transcript-list";
import { usePlayerClock } from "./player-clock";

/** More bars than this would be thinner than a pixel on any screen. */
const MAX_BARS = 800;
const KEY_STEP_SECONDS = 5;

/** Max-pools `data` to at most MAX_BARS values scaled to 0..1. */
function bars(data: number[]): number[] {
  const size = Math.max(1, Math.ceil(data.length / MAX_BARS));
  const out: number[] = [];
  for (let i = 0; i < data.length; i += size) {
    let peak = 0;
    for (let j = i; j < Math.min(i + size, data.length); j++) peak = Math.max(peak, Math.abs(data[j]!));
    out.push(peak);
  }
  const top = Math.max(...out, 1e-9);
  return out.map((v) => v / top);
}

export function Waveform({ data, duration, player }: { data: number[]; duration: number; player: HTMLAudioElement | null }) {
  const heights = useMemo(() => bars(data), [data]);
  const path = useMemo(
    () => heights.map((h, i) => `M${i + 0.5} ${50 - Math.max(h, 0.02) * 48}V${50 + Math.max(h, 0.02) * 48}`).join(""),
    [heights],
  );
  const playedClip = useRef<SVGRectElement>(null);
  const playhead = useRef<SVGLineElement>(null);
  const [second, setSecond] = useState(0);
  const total = () => (player && Number.isFinite(player.duration) && player.duration > 0 ? player.duration : duration);

  usePlayerClock(player, (time) => {
    const x = (Math.min(time / (total() || 1), 1) * heights.length).toFixed(2);
    playedClip.current?.setAttribute("width", x);
    playhead.current?.setAttribute("x1", x);
    playhead.current?.setAttribute("x2", x);
    setSecond(Math.floor(time));
  });

  function seek(seconds: number) {
    if (!player) return;
    player.currentTime = Math.max(0, Math.min(seconds, total()));
  }

  return (
    <div
      class="waveform"
      role="slider"
      tabIndex={0}
      aria-label="Position in the recording (click to jump there)"
      aria-valuemin={0}
      aria-valuemax={Math.round(total())}
      aria-valuenow={second}
      aria-valuetext={formatDuration(second)}
      onClick={(e) => {
        const box = e.currentTarget.getBoundingClientRect();
        seek(((e.clientX - box.left) / box.width) * total());
      }}
      onKeyDown={(e) => {
        const now = player?.currentTime ?? 0;
        const to = { ArrowLeft: now - KEY_STEP_SECONDS, ArrowRight: now + KEY_STEP_SECONDS, Home: 0, End: total() }[e.key];
        if (to === undefined) return;
        e.preventDefault();
        seek(to);
      }}
    >
      <svg viewBox={`0 0 ${heights.length} 100`} preserveAspectRatio="none" aria-hidden="true">
        <clipPath id="waveform-played">
          <rect ref={playedClip} x="0" y="0" width="0" height="100" />
        </clipPath>
        <path d={path} class="waveform-bars" />
        <path d={path} class="waveform-played" clip-path="url(#waveform-played)" />
        <line ref={playhead} class="waveform-playhead" x1="0" x2="0" y1="0" y2="100" />
      </svg>
    </div>
  );
}
