// For tests that read what the notifier recorded about its deliveries.
export { attemptsOf, listDeliveries, type AttemptRecord, type DeliveryRow } from "./store";
