package main

import (
	"fmt"
	"strings"
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
