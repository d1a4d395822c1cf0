-- An event the message server refuses for good (over its max_payload) is set aside, not retried in a
-- loop: before, one such event held back every later event of the service. It is tried again
-- after OUTBOX_REFUSED_RETRY_MS (say, once an operator raised max_payload) and stays until published.
alter table outbox add column refused_at timestamptz, add column refused_error text;
