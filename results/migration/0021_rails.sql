-- 0021_rails: multi-rail samples (issue 4). It comes after 0020, which
-- rebuilds the samples table: columns added before that would be lost.
--
-- peers:      who the rank talked to, "3", or "all" (every other rank)
-- strategy:   how its transfers spread over the rails (single, split,
--             round-robin, per-op, adaptive); '' before rails existed
-- rails:      JSON list of the rails the strategy used, such as [0,1,2,3]
-- rail_bytes: JSON list, bytes the rank sent on each rail over all timed
--             iterations: how an adaptive run shared the work
-- link_bps:   capacity of the NICs behind those rails, each NIC counted
--             once, bit/s; 0 when unknown. Percent of link divides by it.
-- requeued:   posts the provider refused with -FI_EAGAIN in the timed
--             phase, queued and posted again later
ALTER TABLE samples ADD COLUMN peers TEXT NOT NULL DEFAULT '';
ALTER TABLE samples ADD COLUMN strategy TEXT NOT NULL DEFAULT '';
ALTER TABLE samples ADD COLUMN rails TEXT NOT NULL DEFAULT '[]';
ALTER TABLE samples ADD COLUMN rail_bytes TEXT NOT NULL DEFAULT '[]';
ALTER TABLE samples ADD COLUMN link_bps INTEGER NOT NULL DEFAULT 0 CHECK (link_bps >= 0);
ALTER TABLE samples ADD COLUMN requeued INTEGER NOT NULL DEFAULT 0 CHECK (requeued >= 0);
