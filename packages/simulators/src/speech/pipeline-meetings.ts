// Scripts for the transcription pipeline tests and bench: short enough for the suite (≈40 s),
// three speakers who start at different times (so each track has its own start offset).
import type { MeetingScript } from "./synth";

/** ≈40 s, three speakers joining one after another; decisions and tasks for the action items. */
export const threeSpeakerSync: MeetingScript = {
  name: "three-speaker-sync",
  speakers: [
    { id: "alice", name: "Alice", voice: "kal16" },
    { id: "bob", name: "Bob", voice: "rms" },
    { id: "carol", name: "Carol", voice: "awb" },
  ],
  gap: 0.6,
  leadIn: 0.8,
  turns: [
    { speaker: "alice", text: "Good morning everyone. Today we review the plan for the product launch." },
    { speaker: "bob", text: "The testing team found several problems with the new payment system." },
    { speaker: "carol", text: "The customer survey shows that people want a simpler checkout page." },
    { speaker: "alice", text: "Then we decided to move the launch to March." },
    { speaker: "bob", text: "I agree. I will fix the payment problems by next week." },
    { speaker: "carol", text: "I will update the marketing campaign schedule and tell the press team." },
    { speaker: "alice", text: "Alice will send the budget report by Friday." },
    { speaker: "bob", text: "We also agreed to hire two more engineers for the mobile team." },
    { speaker: "carol", text: "Carol will share the survey results with the design team next week." },
  ],
};

/** ≈25 s of one person dictating with clear pauses between sentences: the live recording tests and bench. */
export const liveDictation: MeetingScript = {
  name: "live-dictation",
  speakers: [{ id: "alice", name: "Alice", voice: "kal16" }],
  gap: 1.2,
  leadIn: 1,
  turns: [
    { speaker: "alice", text: "Good morning everyone." },
    { speaker: "alice", text: "Today we review the plan for the product launch." },
    { speaker: "alice", text: "The testing team found several problems with the payment system." },
    { speaker: "alice", text: "We decided to move the launch to March." },
    { speaker: "alice", text: "I will send the budget report by Friday." },
    { speaker: "alice", text: "Thank you and see you next week." },
  ],
};
