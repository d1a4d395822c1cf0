// CloudEvents 1.0 envelope shared by every Scribe event; data is typed per event type in the registry.
import { z } from "@hono/zod-openapi";

export const CloudEventSchema = z.object({
  specversion: z.literal("1.0"),
  id: z.uuid(),
  source: z.string().min(1),
  type: z.string().min(1),
  subject: z.string().min(1),
  time: z.iso.datetime({ offset: true }),
  datacontenttype: z.literal("application/json").default("application/json"),
  dataschema: z.string().min(1),
  data: z.unknown(),
});
export type CloudEvent<T = unknown> = Omit<z.infer<typeof CloudEventSchema>, "data"> & { data: T };
