// Tokens already verified, answered from memory until they expire: a client sends the same bearer
// token with every request for its lifetime, and checking its signature again was the gateway's
// largest cost per read after the socket writes (transcript-reads bench). Only for tokens whose
// verification depends on nothing but the token, a fixed key and the clock (the password
// backend's: signature and expiry, no revocation, tokens.ts); an identity provider's keys rotate,
// so its tokens are not kept. Refusals are not kept: a refused token is checked again each time.
// Bounded, the oldest entry evicted first.

/** What a verification yields for a good token: its claims and its `exp` (seconds since the epoch). */
export type Verified<C> = C & { exp: number };

export class VerifiedTokens<C> {
  private readonly entries = new Map<string, Verified<C>>();

  constructor(
    private readonly verify: (token: string, now: Date) => Promise<Verified<C> | null>,
    private readonly max = 10_000,
  ) {}

  /** The token's claims, or null when it does not verify at `now`. */
  async check(token: string, now: Date): Promise<Verified<C> | null> {
    const known = this.entries.get(token);
    // jose's rule: a token is good while the current whole second is before its exp.
    if (known && Math.floor(now.getTime() / 1000) < known.exp) return known;
    if (known) this.entries.delete(token);
    const verified = await this.verify(token, now);
    if (verified) {
      this.entries.set(token, verified);
      if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value!);
    }
    return verified;
  }
}
