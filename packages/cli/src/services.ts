// Every service the `scribe` CLI can run, in start order (the gateway last, so it stops first).
import { calendarService } from "@scribe/calendar";
import { gatewayService } from "@scribe/gateway";
import { meetingsService } from "@scribe/meetings";
import { notifierService } from "@scribe/notifier";
import { recordingsService } from "@scribe/recordings";
import { projectionService } from "@scribe/projection";
import { roomsService } from "@scribe/rooms";
import { searchService } from "@scribe/search";
import { transcriptionService } from "@scribe/transcription";
import type { ServiceDefinition } from "@scribe/kit";
import type { z } from "zod";

export const SERVICES: ServiceDefinition<z.ZodObject>[] = [
  roomsService as unknown as ServiceDefinition<z.ZodObject>,
  meetingsService as unknown as ServiceDefinition<z.ZodObject>,
  // Makes calendar meetings through the meetings service, which is up by then.
  calendarService as unknown as ServiceDefinition<z.ZodObject>,
  recordingsService as unknown as ServiceDefinition<z.ZodObject>,
  // The projection migrates the read model that search reads, so it starts first.
  projectionService as unknown as ServiceDefinition<z.ZodObject>,
  searchService as unknown as ServiceDefinition<z.ZodObject>,
  notifierService as unknown as ServiceDefinition<z.ZodObject>,
  // The transcript write side and the pipeline workers; its recording.ready consumer takes only
  // new events, so it is up before the gateway lets anyone upload.
  transcriptionService as unknown as ServiceDefinition<z.ZodObject>,
  gatewayService as unknown as ServiceDefinition<z.ZodObject>,
];

export function servicesByName(names: string[]): ServiceDefinition<z.ZodObject>[] {
  if (names.length === 0) return SERVICES;
  const unknown = names.filter((n) => !SERVICES.some((s) => s.name === n));
  if (unknown.length) throw new Error(`unknown service ${unknown.join(", ")}; known: ${SERVICES.map((s) => s.name).join(", ")}`);
  return SERVICES.filter((s) => names.includes(s.name));
}
