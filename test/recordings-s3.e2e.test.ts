// Recordings and media end to end with the s3 driver against a real S3-protocol server (s3rver).
import { mediaSuite } from "./support/media-suite";

mediaSuite("s3");
