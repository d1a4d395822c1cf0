// Live recording over WebRTC (api.md §2.14 record/webrtc): the browser's SDP offer in, the
// server's SDP answer out, under the reference's component name for both.
import { z } from "@hono/zod-openapi";

export const RtcOffer = z.object({ sdp: z.string(), type: z.string() }).openapi("RtcOffer");
export type RtcOffer = z.infer<typeof RtcOffer>;
