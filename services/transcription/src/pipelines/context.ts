// What a step handler reaches at run time. Workflow definitions are built once per process with a
// getter: startPipeline only plans (it never runs a handler), the workers bind the real port/deps.
import type { Logger } from "@scribe/kit";
import type { PipelineDeps } from "./deps";
import type { TranscriptPort } from "./port";

export interface PipelineContext {
  port: TranscriptPort;
  deps: PipelineDeps;
  log: Logger;
}

export type GetContext = () => PipelineContext;

export const planningOnly: GetContext = () => {
  throw new Error("pipeline step handlers need startPipelineWorkers (this definition only plans runs)");
};
