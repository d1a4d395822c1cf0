-- Webhook secrets stay in the rooms service (issue 15.14): the notifier asks for one when it signs
-- and keeps no copy.
alter table room drop column webhook_secret;
