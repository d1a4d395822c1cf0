// Quotas of anonymous uploads on a public instance (PUBLIC_MODE): uploads started and bytes stored
// per client address per hour, counted in the gateway's database so every replica shares them.
import { consumeQuotas, quotaExceeded, recordUsage, type Sql, systemClock, type Clock } from "@scribe/kit";
import { rateLimitKey, requestClientAddress, trustedProxies } from "../auth/client-address";
import type { GatewayConfig } from "../config";
import type { AppContext } from "./context";

const HOUR = 3600;

export interface UploadQuota {
  /** Before a chunk is read: refuses (429) when the address started too many uploads or stored too many bytes. */
  admit(chunkNumber: number): Promise<void>;
  /** After a chunk is stored: counts its bytes. */
  stored(bytes: number): Promise<void>;
}

type QuotaSettings = Pick<
  GatewayConfig,
  "PUBLIC_MODE" | "TRUSTED_PROXIES" | "ANONYMOUS_UPLOADS_PER_HOUR" | "ANONYMOUS_UPLOAD_BYTES_PER_HOUR"
>;

/** The quota of this request's caller, or null when none applies (signed in, or not a public instance). */
export function anonymousUploadQuota(c: AppContext, sql: Sql, config: QuotaSettings, now: Clock = systemClock): UploadQuota | null {
  if (!config.PUBLIC_MODE || c.get("caller").userId !== null) return null;
  const address = rateLimitKey(requestClientAddress(c, trustedProxies(config.TRUSTED_PROXIES)));
  const bytesKey = `anonymous-upload-bytes:${address}`;
  return {
    async admit(chunkNumber) {
      const outcome = await consumeQuotas(
        sql,
        [
          // A new upload starts with its first chunk.
          {
            key: `anonymous-uploads:${address}`,
            limit: config.ANONYMOUS_UPLOADS_PER_HOUR,
            windowSeconds: HOUR,
            amount: chunkNumber === 0 ? 1 : 0,
          },
          { key: bytesKey, limit: config.ANONYMOUS_UPLOAD_BYTES_PER_HOUR, windowSeconds: HOUR, amount: 0 },
        ],
        now(),
      );
      if (!outcome.ok) {
        c.get("log").warn({ address, quota: outcome.key.split(":")[0] }, "anonymous upload quota reached");
        throw quotaExceeded("Upload quota for anonymous use reached. Try again later or sign in.", outcome.retryAfterSeconds);
      }
    },
    async stored(bytes) {
      await recordUsage(sql, { key: bytesKey, windowSeconds: HOUR, amount: bytes }, now());
    },
  };
}
