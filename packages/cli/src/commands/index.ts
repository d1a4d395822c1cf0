// Every `scribe` subcommand, in the order `scribe --help` lists them.
import type { CliCommand } from "../command";
import { configCli } from "./config";
import { demoCli } from "./demo";
import { devCli } from "./dev";
import { dlqCli } from "./dlq";
import { hashPasswordCli } from "./hash-password";
import { migrateCli } from "./migrate";
import { recordingsCli } from "./recordings";
import { replayCli } from "./replay";
import { runsCli } from "./runs";
import { streamsCli } from "./streams";
import { tailCli } from "./tail";
import { transcribeCli } from "./transcribe";
import { upCli } from "./up";
import { webhooksCli } from "./webhooks";

export const COMMANDS: CliCommand[] = [
  migrateCli,
  upCli,
  transcribeCli,
  devCli,
  demoCli,
  streamsCli,
  tailCli,
  dlqCli,
  runsCli,
  replayCli,
  recordingsCli,
  webhooksCli,
  configCli,
  hashPasswordCli,
];
