-- A user's own website (herald keys create --user ... --website ...):
-- POST /v1/ai-traffic/sites/ensure falls back to it when the team has no
-- website, as SPEC says.

-- +goose Up
ALTER TABLE users ADD COLUMN website TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE users DROP COLUMN website;
