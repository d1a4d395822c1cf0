// The rooms service: owns rooms and their settings, emits room.created / updated / deleted; keeps
// the calendar service's last ICS sync of each room for room responses.
import { defineService } from "@scribe/kit";
import { registerCommands } from "./commands";
import { RoomsConfig } from "./config";
import { registerConsumers } from "./consumers";
import { registerQueries } from "./queries";

export const roomsService = defineService({
  name: "rooms",
  config: RoomsConfig,
  async start(rt) {
    const { rpc, sql, config } = rt;
    registerCommands(rpc, sql, config);
    registerQueries(rpc, sql, config);
    registerConsumers(rt);
  },
});
