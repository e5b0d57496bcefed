package main

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hashicorp/go-hclog"

	"github.com/heraldhq/herald/config"
)

// MinSecretKeyLen is the shortest HERALD_SECRET_KEY accepted: 32 random
// characters (`openssl rand -base64 32` gives 44). Credentials sealed with
// a guessable key are not protected, so a short key is refused at start
// instead of silently weakening every stored secret.
const MinSecretKeyLen = 32

// checkSecretKey validates a configured secret key; "" (unset) is allowed.
func checkSecretKey(key string) error {
	if key == "" {
		return nil
	}
	if strings.TrimSpace(key) != key || strings.ContainsAny(key, " \t\r\n") {
		return fmt.Errorf("HERALD_SECRET_KEY (secret_key) must not contain whitespace")
	}
	if len(key) < MinSecretKeyLen {
		return fmt.Errorf("HERALD_SECRET_KEY (secret_key) is %d characters; use at least %d random characters, such as the output of `openssl rand -base64 32`", len(key), MinSecretKeyLen)
	}
	return nil
}

// ensureSecretKey gives the embedded default a secret key for stored
// credentials: one generated on first start and kept beside the SQLite file
// (mode 0600), so destination connections and saved webhooks work with zero
// setup. Distributed hosts must share one key, so they get none unless
// configured, and credentials are refused until it is set.
func ensureSecretKey(cfg *config.Config, log hclog.Logger) error {
	if cfg.SecretKey != "" {
		return checkSecretKey(cfg.SecretKey)
	}
	if !cfg.Embedded() {
		log.Warn("HERALD_SECRET_KEY is not set: destination connections and saved webhooks cannot be stored")
		return nil
	}
	path := filepath.Join(cfg.DataDir, "secret.key")
	if b, err := os.ReadFile(path); err == nil && len(strings.TrimSpace(string(b))) >= 32 {
		cfg.SecretKey = strings.TrimSpace(string(b))
		return nil
	}
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return fmt.Errorf("generate secret key: %w", err)
	}
	key := base64.StdEncoding.EncodeToString(raw)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		// Another process (herald keys create) made it first.
		b, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("read secret key: %w", err)
		}
		cfg.SecretKey = strings.TrimSpace(string(b))
		return nil
	}
	if err != nil {
		return fmt.Errorf("create secret key: %w", err)
	}
	if _, err := f.WriteString(key + "\n"); err != nil {
		f.Close()
		return fmt.Errorf("write secret key: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("write secret key: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write secret key: %w", err)
	}
	log.Info("generated a secret key for stored credentials", "path", path)
	cfg.SecretKey = key
	return nil
}

// mcpApprovalKey derives the key that signs MCP approval questions from the
// host's secret key, so every host of a cluster accepts every answer.
func mcpApprovalKey(secret string) []byte {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte("herald mcp approval v1"))
	return m.Sum(nil)
}
