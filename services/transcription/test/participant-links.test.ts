import { describe, expect, it } from "vitest";
import { refusedUserLinks } from "../src/domain/participant-links";

describe("which users a participant may be linked to", () => {
  const current = [{ user_id: "linked-by-pipeline" }, { user_id: null }];
  it("allows the caller itself, links the transcript already has, and no link", () => {
    expect(refusedUserLinks(current, [{ user_id: "me" }, { user_id: "linked-by-pipeline" }, { user_id: null }, {}], "me")).toEqual([]);
  });
  it("refuses any other user, naming the field", () => {
    expect(refusedUserLinks(current, [{ user_id: "me" }, { user_id: "someone" }], "me").map((e) => e.loc)).toEqual([
      ["body", "participants", 1, "user_id"],
    ]);
    expect(refusedUserLinks([], [{ user_id: "someone" }], null)).toHaveLength(1);
  });
});
