-- Fine-tuning trains only on chat sessions whose owner opted in (issue 22):
-- chat sessions are personal, so none is shared for training unless its
-- owner says so (PUT /v1/ai/chat/session/{sessionId}/training).

-- +goose Up
ALTER TABLE chat_sessions ADD COLUMN training_opt_in BOOLEAN NOT NULL DEFAULT FALSE;

-- +goose Down
ALTER TABLE chat_sessions DROP COLUMN training_opt_in;
