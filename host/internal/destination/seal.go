package destination

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
)

// ErrNoSecretKey is returned when credentials must be sealed or opened but
// HERALD_SECRET_KEY is not configured.
var ErrNoSecretKey = errors.New("HERALD_SECRET_KEY is not set: Herald does not store destination credentials or webhook secrets without it")

// sealPrefix versions the sealed format: "v1." + base64(nonce || ciphertext).
const sealPrefix = "v1."

// Sealer encrypts credentials at rest with AES-256-GCM. The 32-byte key is
// derived from the configured secret with HKDF-SHA256, so any secret length
// works and the key is never the secret itself. Each sealed value is bound
// to its row (the additional data names workspace and purpose), so a sealed
// value copied to another row does not open.
type Sealer struct {
	aead cipher.AEAD
}

// NewSealer returns a Sealer for secret; ErrNoSecretKey when secret is empty.
func NewSealer(secret string) (*Sealer, error) {
	if strings.TrimSpace(secret) == "" {
		return nil, ErrNoSecretKey
	}
	key, err := hkdf.Key(sha256.New, []byte(secret), nil, "herald credentials v1", 32)
	if err != nil {
		return nil, fmt.Errorf("derive credential key: %w", err)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("credential cipher: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("credential cipher: %w", err)
	}
	return &Sealer{aead: aead}, nil
}

// Seal encrypts plaintext bound to aad.
func (s *Sealer) Seal(plaintext []byte, aad string) string {
	nonce := make([]byte, s.aead.NonceSize(), s.aead.NonceSize()+len(plaintext)+s.aead.Overhead())
	rand.Read(nonce)
	out := s.aead.Seal(nonce, nonce, plaintext, []byte(aad))
	return sealPrefix + base64.RawStdEncoding.EncodeToString(out)
}

// Open decrypts a value made by Seal with the same aad. It fails when the
// key changed or the value was tampered with or moved to another row.
func (s *Sealer) Open(sealed, aad string) ([]byte, error) {
	raw, ok := strings.CutPrefix(sealed, sealPrefix)
	if !ok {
		return nil, errors.New("open credentials: unknown format")
	}
	data, err := base64.RawStdEncoding.DecodeString(raw)
	if err != nil || len(data) < s.aead.NonceSize() {
		return nil, errors.New("open credentials: corrupt value")
	}
	n := s.aead.NonceSize()
	out, err := s.aead.Open(nil, data[:n], data[n:], []byte(aad))
	if err != nil {
		return nil, errors.New("open credentials: authentication failed (was HERALD_SECRET_KEY changed?)")
	}
	return out, nil
}
