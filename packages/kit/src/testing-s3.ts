// A real S3-protocol server for tests (s3rver on a free port, in a temporary folder), and the
// storage settings that point the s3 driver at it.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import S3rver from "s3rver";
import type { StorageConfig } from "./storage/config";

export interface TestS3 {
  endpoint: string;
  /** Environment for services: the s3 driver against this server, with these buckets. */
  env: Record<string, string>;
  config(buckets?: Partial<StorageConfig>): StorageConfig;
  stop(): Promise<void>;
}

export const TEST_S3_KEY = "S3RVER";

export async function startTestS3(buckets: string[]): Promise<TestS3> {
  const directory = mkdtempSync(join(tmpdir(), "scribe-s3rver-"));
  const server = new S3rver({
    port: 0,
    address: "127.0.0.1",
    silent: true,
    directory,
    configureBuckets: buckets.map((name) => ({ name })),
  });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const env = {
    TRANSCRIPT_STORAGE_BACKEND: "s3",
    TRANSCRIPT_STORAGE_AWS_ENDPOINT_URL: endpoint,
    TRANSCRIPT_STORAGE_AWS_REGION: "us-east-1",
    TRANSCRIPT_STORAGE_AWS_ACCESS_KEY_ID: TEST_S3_KEY,
    TRANSCRIPT_STORAGE_AWS_SECRET_ACCESS_KEY: TEST_S3_KEY,
    TRANSCRIPT_STORAGE_AWS_FORCE_PATH_STYLE: "true",
  };
  return {
    endpoint,
    env,
    config: (extra = {}) => ({
      TRANSCRIPT_STORAGE_BACKEND: "s3",
      STORAGE_LOCAL_ROOT: directory,
      TRANSCRIPT_STORAGE_AWS_BUCKET_NAME: "scribe-transcripts",
      DAILYCO_STORAGE_AWS_BUCKET_NAME: "daily-recordings",
      WHEREBY_STORAGE_AWS_BUCKET_NAME: "whereby-recordings",
      TRANSCRIPT_STORAGE_AWS_REGION: "us-east-1",
      TRANSCRIPT_STORAGE_AWS_ENDPOINT_URL: endpoint,
      TRANSCRIPT_STORAGE_AWS_ACCESS_KEY_ID: TEST_S3_KEY,
      TRANSCRIPT_STORAGE_AWS_SECRET_ACCESS_KEY: TEST_S3_KEY,
      TRANSCRIPT_STORAGE_AWS_FORCE_PATH_STYLE: true,
      ...extra,
    }),
    async stop() {
      await server.close().catch(() => {});
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
