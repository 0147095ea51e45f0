-- The process whose analytics store consumes the outbox (docs/analytics-engine.md, "One consumer"): a token the
-- process draws when it takes the store's advisory lock and writes here when it registers. markApplied() moves the
-- position only for that owner, so a process that lost the lock (its connection cut) and the store to another one
-- cannot record a position for the store it no longer feeds.
ALTER TABLE "analytics_consumer" ADD COLUMN "owner" uuid;
