// Login rate limit: a rolling window per client address, every attempt counting.
import { describe, expect, it } from "vitest";
import { SlidingWindowLimiter } from "../src/auth/rate-limit";

describe("login rate limit", () => {
  it("allows the limit of attempts in the window and refuses the next", () => {
    const l = new SlidingWindowLimiter(10, 300_000);
    for (let i = 0; i < 10; i++) expect(l.attempt("1.2.3.4", 1000 + i)).toBe(true);
    expect(l.attempt("1.2.3.4", 2000)).toBe(false);
  });

  it("counts each address on its own", () => {
    const l = new SlidingWindowLimiter(2, 1000);
    expect(l.attempt("a", 0)).toBe(true);
    expect(l.attempt("a", 1)).toBe(true);
    expect(l.attempt("a", 2)).toBe(false);
    expect(l.attempt("b", 2)).toBe(true);
  });

  it("rolls: an attempt leaves the window once it is older than the window", () => {
    const l = new SlidingWindowLimiter(2, 1000);
    l.attempt("a", 0);
    l.attempt("a", 500);
    expect(l.attempt("a", 999)).toBe(false);
    expect(l.attempt("a", 1000)).toBe(true); // the attempt at 0 has left
    expect(l.attempt("a", 1001)).toBe(false); // 500 and 1000 are still in
  });

  it("does not extend the wait with refused attempts", () => {
    const l = new SlidingWindowLimiter(1, 1000);
    l.attempt("a", 0);
    for (let t = 100; t < 1000; t += 100) expect(l.attempt("a", t)).toBe(false);
    expect(l.attempt("a", 1000)).toBe(true);
  });

  it("forgets addresses whose attempts all expired once many are tracked", () => {
    const l = new SlidingWindowLimiter(5, 1000, 100);
    for (let i = 0; i < 150; i++) l.attempt(`10.0.0.${i}`, 0);
    l.attempt("late", 5000);
    expect(l.size).toBe(1);
  });

  it("sweeps at most ten times per window, however many attempts arrive", () => {
    // Window 1000 ms: sweeps at least 100 ms apart, once more than 10 addresses are tracked.
    const l = new SlidingWindowLimiter(5, 1000, 10);
    for (let i = 0; i < 20; i++) l.attempt(`a${i}`, 0); // sweep at 0 (nothing expired)
    for (let i = 0; i < 10; i++) l.attempt(`b${i}`, 50); // 50 ms later: no sweep
    l.attempt("c", 1010); // a* expired; a sweep is due: only b* and c remain
    expect(l.size).toBe(11);
    l.attempt("d", 1060); // b* expired too, but the last sweep was 50 ms ago: kept for now
    expect(l.size).toBe(12);
    l.attempt("e", 1110); // next sweep
    expect(l.size).toBe(3);
  });
});
