// The notifier: keeps copies of rooms and meetings, turns completed transcripts into
// webhook, e-mail and team-chat deliveries that its dispatcher works off with retries, answers the
// webhook test and the sharing operations.
import { INTERNAL_CALLER, roomsOps } from "@scribe/contracts";
import { QUOTA_MIGRATIONS, createHttpClient, defineService, rpcCall } from "@scribe/kit";
import { EmailSender, smtpMailer } from "./channels/email";
import { WebhookSender } from "./channels/webhook";
import { ZulipClient, zulipConfigured } from "./channels/zulip";
import { registerCommands } from "./commands";
import { NotifierConfig } from "./config";
import { registerConsumers } from "./consumers";
import { registerDeliveryOps } from "./delivery-ops";
import { createDispatcher } from "./dispatcher";
import { emailConfigured } from "./domain/email";

export const notifierService = defineService({
  name: "notifier",
  config: NotifierConfig,
  sharedMigrations: [QUOTA_MIGRATIONS],
  async start(rt) {
    const { sql, bus, rpc, config, log, onStop, clock } = rt;
    // Webhook URLs are users': guarded, and a redirect is an answer (never followed).
    const http = createHttpClient({
      guard: { allowPrivate: config.ALLOW_PRIVATE_URLS },
      maxRedirects: 0,
      timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    });
    onStop(() => http.close());
    const webhooks = new WebhookSender(
      http,
      config,
      async (roomId) =>
        (await rpcCall(bus, roomsOps.webhookSecret, { caller: INTERNAL_CALLER, id: roomId }, { timeoutMs: config.RPC_TIMEOUT_MS }))
          .webhook_secret,
    );
    const mailer = emailConfigured(config) ? smtpMailer(config) : null;
    if (mailer) onStop(async () => mailer.close());
    const email = mailer ? new EmailSender(mailer, bus, config) : null;
    const zulip = zulipConfigured(config) ? new ZulipClient(config) : null;

    registerConsumers(rt);
    registerCommands({ rpc, bus, sql, log, config, webhooks, email, zulip, clock });
    registerDeliveryOps(rpc, sql);

    // Longer than any one attempt can take (an e-mail also reads the transcript first).
    const leaseMs =
      2 * Math.max(config.WEBHOOK_TIMEOUT_MS, config.SMTP_TIMEOUT_MS + 2 * config.RPC_TIMEOUT_MS, 2 * config.ZULIP_TIMEOUT_MS) + 60_000;
    const dispatcher = createDispatcher({
      sql,
      log: log.child({ job: "notifier.dispatch" }),
      webhooks,
      email,
      zulip,
      concurrency: config.NOTIFIER_CONCURRENCY,
      leaseMs,
      clock,
    });
    if (config.NOTIFIER_DISPATCH_INTERVAL_MS > 0) {
      await dispatcher.start(config.NOTIFIER_DISPATCH_INTERVAL_MS);
      onStop(() => dispatcher.stop());
    }

    // Tests (and an operator's one-off run) drive the dispatcher with their own clock.
    return { deliverDue: dispatcher.deliverDue };
  },
});
