-- MCP write tools ask the human through the client (elicitation) unless the
-- operator marked the key unattended (`herald keys create --mcp-unattended`):
-- a key for a pipeline with no human at the client.

-- +goose Up
ALTER TABLE api_keys ADD COLUMN mcp_unattended BOOLEAN NOT NULL DEFAULT FALSE;

-- +goose Down
ALTER TABLE api_keys DROP COLUMN mcp_unattended;
