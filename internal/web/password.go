package web

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/crypto/argon2"
)

// Argon2id parameters (RFC 9106's second recommendation, lighter memory
// for a shared host); they are stored with each hash so they can change.
const (
	argonTime    = 2
	argonMemory  = 32 * 1024
	argonThreads = 2
	argonKeyLen  = 32
)

// hashPassword returns a PHC-style argon2id hash of password.
func hashPassword(password string) (string, error) {
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("hash password: %w", err)
	}
	key := argon2.IDKey([]byte(password), salt, argonTime, argonMemory, argonThreads, argonKeyLen)
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, argonMemory, argonTime, argonThreads, b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

var errBadHash = errors.New("password hash is not argon2id")

// Bounds on the parameters read from a stored hash: a tampered row must not
// make one log-in cost seconds of CPU or gigabytes of memory.
const (
	maxArgonTime    = 10
	maxArgonMemory  = 256 * 1024 // KiB
	maxArgonThreads = 16
)

// argonParams are the parameters and values of a stored hash.
type argonParams struct {
	mem, iter  uint32
	threads    uint8
	salt, hash []byte
}

// parseHash reads a PHC-style argon2id hash and checks its parameters
// against the bounds.
func parseHash(hash string) (argonParams, error) {
	var p argonParams
	parts := strings.Split(hash, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return p, errBadHash
	}
	var version int
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return p, errBadHash
	}
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &p.mem, &p.iter, &p.threads); err != nil {
		return p, errBadHash
	}
	if p.iter < 1 || p.iter > maxArgonTime || p.mem < 8*uint32(p.threads) || p.mem > maxArgonMemory ||
		p.threads < 1 || p.threads > maxArgonThreads {
		return p, fmt.Errorf("%w: parameters m=%d,t=%d,p=%d out of bounds", errBadHash, p.mem, p.iter, p.threads)
	}
	b64 := base64.RawStdEncoding
	var err error
	if p.salt, err = b64.DecodeString(parts[4]); err != nil || len(p.salt) < 8 || len(p.salt) > 64 {
		return p, errBadHash
	}
	if p.hash, err = b64.DecodeString(parts[5]); err != nil || len(p.hash) < 16 || len(p.hash) > 64 {
		return p, errBadHash
	}
	return p, nil
}

// checkPassword reports whether password matches hash. A hash that is not
// argon2id or whose parameters are out of bounds gives errBadHash.
func checkPassword(hash, password string) (bool, error) {
	p, err := parseHash(hash)
	if err != nil {
		return false, err
	}
	got := argon2.IDKey([]byte(password), p.salt, p.iter, p.mem, p.threads, uint32(len(p.hash)))
	return subtle.ConstantTimeCompare(got, p.hash) == 1, nil
}

// needsRehash reports whether a valid hash was made with other parameters
// than the current ones, so a successful log-in stores it again.
func needsRehash(hash string) bool {
	p, err := parseHash(hash)
	return err == nil && (p.mem != argonMemory || p.iter != argonTime || p.threads != argonThreads ||
		len(p.hash) != argonKeyLen || len(p.salt) != 16)
}
