DROP TABLE notify_email;
DROP TABLE webhook_deliveries;
DROP TABLE webhooks;
DROP TABLE notify_events;
