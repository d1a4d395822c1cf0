// The SQL-facing listing scope must say exactly what listedFor says, for every kind of caller and row.
import { describe, expect, it } from "vitest";
import { ANONYMOUS, type Caller } from "../src/common/schemas";
import { inScope, listedFor, listingScope, sharedEmailIncludesLink } from "../src/transcripts/access";

describe("listing scope", () => {
  it("agrees with listedFor for every caller, owner, sharing, deletion and PUBLIC_MODE", () => {
    const callers: Caller[] = [ANONYMOUS, { userId: "alice", email: null, via: "bearer" }, { userId: "bob", email: null, via: "api_key" }];
    for (const caller of callers)
      for (const publicMode of [false, true])
        for (const user_id of [null, "alice", "carol"])
          for (const room_is_shared of [false, true])
            for (const deleted_at of [null, "2026-01-01T00:00:00Z"])
              for (const share_mode of ["private", "semi-private", "public"] as const) {
                const t = { user_id, room_is_shared, deleted_at, share_mode };
                const scoped = deleted_at === null && inScope(listingScope(caller, publicMode), t);
                expect(scoped, JSON.stringify({ caller, publicMode, t })).toBe(listedFor(t, caller, publicMode));
              }
  });
});

describe("sharing a transcript by e-mail on request", () => {
  it("includes the link only for a public transcript (behaviour-search-notify-auth §4.3)", () => {
    const modes = ["private", "semi-private", "public"] as const;
    expect(modes.filter((share_mode) => sharedEmailIncludesLink({ share_mode }))).toEqual(["public"]);
  });
});
