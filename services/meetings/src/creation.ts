// Meeting creation in a room, one at a time across replicas, with no database transaction open while
// the platform is asked (issue 14 item 6): claim (one short statement), act outside (the platform
// call), record (one short transaction storing the meeting and its event and releasing the claim).
// A create that finds the room claimed waits for the claim to go, then looks again: the meeting
// recorded meanwhile is reused, or it claims in turn.
//
// Why not an advisory lock held across the call: a transaction-scoped one keeps a transaction open
// for the platform's whole answer, and a session one needs a reserved connection per waiter; with a
// burst of creates in one room the waiters held every pooled connection while the holder waited for
// one to record its meeting, so they timed out (503/504) instead of being served (commit e7b715d).
// Here a waiter holds no connection: it sleeps until the claim's release is NOTIFYed (or a poll).
// The holder renews its claim while the platform answers, so the lease can be short: a replica that
// stopped mid-creation holds the room's creates back for one lease, not for the longest platform call.
import { randomUUID } from "node:crypto";
import { Unavailable, type Db, type Logger, type Sql } from "@scribe/kit";
import { meetingCreationWaits } from "./metrics";
import { CREATION_CHANNEL, claimMeetingCreation, releaseMeetingCreation, renewMeetingCreation } from "./store";

/** What a look at the room decided: a meeting to reuse, or how to make one (the platform call). */
export type CreationPlan<T> = { reuse: T } | { create(): Promise<T> };

export interface MeetingCreation {
  /**
   * Reuse what `look` finds or make and record a new one, as the room's only creation. `look` runs
   * before claiming (reuse needs no claim) and again under the claim; `record` runs in the
   * transaction that releases it.
   */
  inRoom<T>(roomId: string, look: (db: Db) => Promise<CreationPlan<T>>, record: (tx: Db, made: T) => Promise<void>): Promise<T>;
  stop(): Promise<void>;
}

export interface MeetingCreationOptions {
  sql: Sql;
  log: Logger;
  /** How long a claim lasts unless renewed: its holder renews it every third of it while it works. */
  leaseMs: number;
  /** How long a create waits for another's claim before asking its caller to retry (503). */
  waitMs: number;
  /** A waiter looks again this often even without a notification (one lost while reconnecting). */
  pollMs?: number;
}

export async function startMeetingCreation(opts: MeetingCreationOptions): Promise<MeetingCreation> {
  const { sql, log, leaseMs, waitMs, pollMs = 1000 } = opts;
  const waiters = new Map<string, Set<() => void>>();
  const listener = await sql.listen(CREATION_CHANNEL, (roomId) => {
    for (const wake of waiters.get(roomId) ?? []) wake();
  });

  /** Registered before claiming, so a release between a refused claim and the wait is not missed. */
  function releaseOf(roomId: string) {
    let set = waiters.get(roomId);
    if (!set) waiters.set(roomId, (set = new Set()));
    let wake = () => {};
    const released = new Promise<void>((resolve) => (wake = resolve));
    set.add(wake);
    return {
      wait: (ms: number) =>
        new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, ms);
          void released.then(() => {
            clearTimeout(timer);
            resolve();
          });
        }),
      forget() {
        set.delete(wake);
        if (set.size === 0 && waiters.get(roomId) === set) waiters.delete(roomId);
      },
    };
  }

  async function underClaim<T>(
    roomId: string,
    token: string,
    look: (db: Db) => Promise<CreationPlan<T>>,
    record: (tx: Db, made: T) => Promise<void>,
  ): Promise<T> {
    let working = true;
    const renewal = setInterval(() => {
      renewMeetingCreation(sql, roomId, token, leaseMs).then(
        (held) => {
          // Not held once released (a renewal racing the release finds nothing: that is fine).
          if (!held && working) log.warn({ roomId, leaseMs }, "a meeting creation claim ran out before it was renewed");
        },
        (err: unknown) => log.warn({ err, roomId }, "could not renew a meeting creation claim"),
      );
    }, leaseMs / 3);
    try {
      // A meeting recorded between the first look and the claim is reused.
      const plan = await look(sql);
      if ("reuse" in plan) {
        await releaseMeetingCreation(sql, roomId, token);
        return plan.reuse;
      }
      const made = await plan.create();
      await sql.begin(async (tx) => {
        await record(tx, made);
        // The platform took longer than the lease: another create may have made a second meeting.
        if (!(await releaseMeetingCreation(tx, roomId, token))) log.warn({ roomId, leaseMs }, "meeting creation outlived its claim");
      });
      return made;
    } catch (e) {
      // Not released, the claim would hold the room's creates back until its lease runs out.
      await releaseMeetingCreation(sql, roomId, token).catch((err: unknown) =>
        log.warn({ err, roomId }, "could not release a meeting creation claim; it expires with its lease"),
      );
      throw e;
    } finally {
      working = false;
      clearInterval(renewal);
    }
  }

  return {
    async inRoom(roomId, look, record) {
      const deadline = performance.now() + waitMs;
      let waited = false;
      for (;;) {
        const plan = await look(sql);
        if ("reuse" in plan) return plan.reuse;
        const release = releaseOf(roomId);
        try {
          const token = randomUUID();
          if (await claimMeetingCreation(sql, roomId, token, leaseMs)) return await underClaim(roomId, token, look, record);
          const left = deadline - performance.now();
          if (left <= 0) throw Unavailable("Meeting creation in progress, please try again");
          if (!waited) meetingCreationWaits.inc();
          waited = true;
          await release.wait(Math.min(pollMs, left));
        } finally {
          release.forget();
        }
      }
    },
    stop: () => listener.unlisten(),
  };
}
