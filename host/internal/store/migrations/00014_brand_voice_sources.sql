-- Website and file brand voices: the text a voice was built from (kept for
-- text voices whose content became a model-written profile), and the state
-- of the periodic re-fetch of website voices (fetchInterval): when it last
-- ran, whether it worked and why not, and when it is due again.

-- +goose Up
ALTER TABLE brand_voices ADD COLUMN source_text TEXT;
ALTER TABLE brand_voices ADD COLUMN last_fetch_at BIGINT;
ALTER TABLE brand_voices ADD COLUMN last_fetch_ok BOOLEAN;
ALTER TABLE brand_voices ADD COLUMN last_fetch_error TEXT;
ALTER TABLE brand_voices ADD COLUMN next_fetch_at BIGINT;
CREATE INDEX brand_voices_due ON brand_voices (next_fetch_at);

-- +goose Down
DROP INDEX brand_voices_due;
ALTER TABLE brand_voices DROP COLUMN next_fetch_at;
ALTER TABLE brand_voices DROP COLUMN last_fetch_error;
ALTER TABLE brand_voices DROP COLUMN last_fetch_ok;
ALTER TABLE brand_voices DROP COLUMN last_fetch_at;
ALTER TABLE brand_voices DROP COLUMN source_text;
