-- The claim's sweep finds the due deliveries of each webhook that is not
-- full, without reading the backlog of those that are (a webhook whose
-- receiver never answers can have hundreds of thousands due; reading past
-- them in due order took 275 ms a claim at 200,000). Decision 0037.
CREATE INDEX deliveries_webhook_due_idx ON deliveries (webhook_id, next_attempt_at, id) WHERE status = 'pending';
