// Storage settings (reference names where they exist) and the factory that opens a bucket.
import type { S3Client } from "@aws-sdk/client-s3";
import { z } from "zod";
import { envBool } from "../config";
import { LocalStorage } from "./local";
import { S3Storage, s3Client } from "./s3";
import type { ObjectStorage } from "./types";

export const StorageConfig = z.object({
  TRANSCRIPT_STORAGE_BACKEND: z
    .enum(["local", "s3", "aws"])
    .default("local")
    .describe("object storage driver: local (a folder) or s3 (any S3-compatible server; `aws` is accepted as s3)"),
  STORAGE_LOCAL_ROOT: z.string().default(".data/storage").describe("folder of the local driver: one sub-folder per bucket"),
  TRANSCRIPT_STORAGE_AWS_BUCKET_NAME: z
    .string()
    .default("scribe-transcripts")
    .describe("bucket for transcript audio, waveforms and uploads"),
  DAILYCO_STORAGE_AWS_BUCKET_NAME: z.string().default("daily-recordings").describe("bucket platform A (Daily) records tracks into"),
  WHEREBY_STORAGE_AWS_BUCKET_NAME: z.string().default("whereby-recordings").describe("bucket platform B (Whereby) records files into"),
  TRANSCRIPT_STORAGE_AWS_REGION: z.string().default("us-east-1").describe("s3 driver: region of the buckets"),
  TRANSCRIPT_STORAGE_AWS_ENDPOINT_URL: z
    .union([z.literal(""), z.url()])
    .default("")
    .describe("s3 driver: endpoint of an S3-compatible server (Garage, MinIO, ...); empty = AWS"),
  TRANSCRIPT_STORAGE_AWS_ACCESS_KEY_ID: z
    .string()
    .default("")
    .describe("s3 driver: access key for every bucket; empty = the AWS SDK's default credential chain"),
  TRANSCRIPT_STORAGE_AWS_SECRET_ACCESS_KEY: z.string().default("").describe("s3 driver: secret key paired with the access key"),
  TRANSCRIPT_STORAGE_AWS_FORCE_PATH_STYLE: envBool(false).describe(
    "s3 driver: address buckets as <endpoint>/<bucket> instead of <bucket>.<endpoint> (most self-hosted servers need true)",
  ),
});
export type StorageConfig = z.infer<typeof StorageConfig>;

export type Bucket = "transcripts" | "daily" | "whereby";

export function bucketName(config: StorageConfig, bucket: Bucket): string {
  switch (bucket) {
    case "transcripts":
      return config.TRANSCRIPT_STORAGE_AWS_BUCKET_NAME;
    case "daily":
      return config.DAILYCO_STORAGE_AWS_BUCKET_NAME;
    case "whereby":
      return config.WHEREBY_STORAGE_AWS_BUCKET_NAME;
  }
}

/** One S3 client (connection pool) per configuration object, shared by every bucket opened with it. */
const clients = new WeakMap<StorageConfig, S3Client>();

/** Open one bucket by its name (events carry bucket names). */
export function openStorage(config: StorageConfig, bucket: string): ObjectStorage {
  switch (config.TRANSCRIPT_STORAGE_BACKEND) {
    case "local":
      return new LocalStorage(config.STORAGE_LOCAL_ROOT, bucket);
    case "s3":
    case "aws": {
      let client = clients.get(config);
      if (!client) {
        client = s3Client({
          region: config.TRANSCRIPT_STORAGE_AWS_REGION,
          endpoint: config.TRANSCRIPT_STORAGE_AWS_ENDPOINT_URL,
          forcePathStyle: config.TRANSCRIPT_STORAGE_AWS_FORCE_PATH_STYLE,
          accessKeyId: config.TRANSCRIPT_STORAGE_AWS_ACCESS_KEY_ID,
          secretAccessKey: config.TRANSCRIPT_STORAGE_AWS_SECRET_ACCESS_KEY,
        });
        clients.set(config, client);
      }
      return new S3Storage(client, bucket);
    }
  }
}
