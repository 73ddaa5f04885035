-- Up Migration

-- A short, non-secret prefix of each API key (`mp_{sellerCode}_` + first 8 secret characters),
-- so operators can tell a seller's keys apart in `npm run keys -- list` without storing the key.
-- NULL for keys stored without one (e.g. by the fixture loader); the list then shows `mp_{code}_`.
ALTER TABLE api_keys ADD COLUMN key_prefix text CHECK (length(key_prefix) <= 80);

-- Down Migration
ALTER TABLE api_keys DROP COLUMN IF EXISTS key_prefix;
