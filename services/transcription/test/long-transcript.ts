// Topics of a long meeting, for the tests and the bench of transcript writes (issue 20): 150 spoken
// words a minute, 300 words a topic, and the speaker changing on every word — the longest WebVTT
// such a meeting can have (every word its own cue).
import { randomUUID } from "node:crypto";
import type { TopicRecord } from "@scribe/contracts";

const WORDS_PER_MINUTE = 150;
const WORDS_PER_TOPIC = 300;

export function topicsOfMeeting(minutes: number): TopicRecord[] {
  const words = minutes * WORDS_PER_MINUTE;
  const topics: TopicRecord[] = [];
  for (let first = 0; first < words; first += WORDS_PER_TOPIC) {
    const count = Math.min(WORDS_PER_TOPIC, words - first);
    topics.push({
      id: randomUUID(),
      title: `Topic ${topics.length}`,
      summary: "What was said in this part of the meeting.",
      timestamp: first * 0.4,
      duration: count * 0.4,
      transcript: null,
      words: Array.from({ length: count }, (_, i) => ({
        text: ` word${first + i}`,
        start: (first + i) * 0.4,
        end: (first + i) * 0.4 + 0.3,
        speaker: (first + i) % 3,
      })),
    });
  }
  return topics;
}
