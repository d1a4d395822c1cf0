export { projectionService } from "./service";
// Operator tool (`scribe replay read-model`): rebuild the read model from the streams.
export { rebuildReadModel, type RebuildProgress, type RebuildReport, type RebuildOptions } from "./replay";
