// The rooms service: owns rooms and their settings, emits room.created / updated / deleted; keeps
// the calendar service's last ICS sync of each room for room responses.
import { defineService, secretBox } from "@scribe/kit";
import { registerCommands } from "./commands";
import { RoomsConfig } from "./config";
import { registerConsumers } from "./consumers";
import { registerQueries } from "./queries";
import { sealPlainWebhookSecrets } from "./store";

export const roomsService = defineService({
  name: "rooms",
  config: RoomsConfig,
  async start(rt) {
    const { rpc, sql, config, log } = rt;
    const box = secretBox(config.SECRET_KEY, "rooms.webhook_secret");
    // Rooms stored before secrets were sealed: sealed once, before anything reads them.
    const sealed = await sql.begin((tx) => sealPlainWebhookSecrets(tx, box));
    if (sealed > 0) log.info({ sealed }, "sealed webhook secrets stored in plain text");
    registerCommands(rpc, sql, config, box, rt.clock);
    registerQueries(rpc, sql, config, box);
    registerConsumers(rt);
  },
});
