// The speaker-attributed words, virtualised (only the rows in view are in the DOM, so a 60-minute
// transcript of ~10k words renders and scrolls like a short one). A click on a word plays the audio
// from there; the word being spoken is highlighted and, while "Follow playback" is on, kept in view.
import { memo } from "preact/compat";
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { formatDuration } from "../pages/transcript-list";
import { playFrom, usePlayerClock } from "./player-clock";
import { wordAt, type Row, type TranscriptRows, type Word } from "./transcript-rows";
import { useVirtualizer } from "./use-virtualizer";

interface Props {
  model: TranscriptRows;
  names: Map<number, string>;
  player: HTMLAudioElement | null;
}

export function WordList({ model, names, player }: Props) {
  const scroller = useRef<HTMLDivElement>(null);
  const [active, setActive] = useState(-1);
  const [follow, setFollow] = useState(true);
  usePlayerClock(player, (time) => setActive(wordAt(model.words, time)));

  const list = useVirtualizer({
    count: model.rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: (i) => (model.rows[i]!.kind === "topic" ? 96 : 80),
    getItemKey: (i) => model.rows[i]!.key,
    overscan: 4,
  });

  const activeRow = active >= 0 ? model.rowOfWord[active]! : -1;
  useEffect(() => {
    if (follow && activeRow >= 0 && player && !player.paused) list.scrollToIndex(activeRow, { align: "auto" });
  }, [activeRow, follow]);

  const play = useCallback((word: Word) => playFrom(player, word.start), [player]);
  return (
    <>
      <label class="follow">
        <input type="checkbox" role="switch" checked={follow} onChange={(e) => setFollow(e.currentTarget.checked)} />
        Follow playback
      </label>
      <div
        ref={scroller}
        class="word-scroller"
        style={{ height: `min(70vh, ${list.getTotalSize()}px)` }}
        role="region"
        aria-label="Transcript text"
        tabIndex={-1}
      >
        <div class="word-rows" style={{ height: `${list.getTotalSize()}px` }}>
          {list.getVirtualItems().map((item) => {
            const row = model.rows[item.index]!;
            const current = item.index === activeRow ? active : -1;
            return (
              <div
                key={item.key}
                data-index={item.index}
                ref={list.measureElement}
                class="word-row"
                style={{ transform: `translateY(${item.start}px)` }}
              >
                <RowView
                  row={row}
                  name={row.kind === "turn" ? (names.get(row.speaker) ?? `Speaker ${row.speaker}`) : ""}
                  current={current}
                  play={play}
                />
              </div>
            );
          })}
        </div>
      </div>
    </>
  );
}

/** One row; re-renders only when its highlighted word or its speaker's name changes. */
const RowView = memo(function RowView({ row, name, current, play }: { row: Row; name: string; current: number; play: (w: Word) => void }) {
  if (row.kind === "topic") {
    return (
      <header class="topic">
        <h3>
          {row.topic.title} <small>{formatDuration(row.topic.timestamp)}</small>
        </h3>
        {row.topic.summary && <p>{row.topic.summary}</p>}
      </header>
    );
  }
  return (
    <div class="segment">
      <span class="speaker">{row.continued ? "" : name}</span>
      <p>
        {row.words.map((word, i) => {
          const isCurrent = row.first + i === current;
          return (
            <span
              key={i}
              class={isCurrent ? "word current" : "word"}
              aria-current={isCurrent ? "true" : undefined}
              role="button"
              tabIndex={0}
              data-start={word.start}
              onClick={() => play(word)}
              onKeyDown={(e) => {
                if (e.key !== "Enter" && e.key !== " ") return;
                e.preventDefault();
                play(word);
              }}
            >
              {word.text}
            </span>
          );
        })}
      </p>
    </div>
  );
});
