package settings

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// MetricsUser says whether the metrics name the person, where a source
// names one (the hooks' user_email), and how: off (the default), hash
// (user.hash, a SHA-256 of the address salted with the team's salt) or
// email (user.email). CURSOR_OTEL_METRICS_USER and
// CURSOR_OTEL_METRICS_USER_SALT have no flag: they are the team's choice,
// set once where its agents run.
type MetricsUser struct {
	Mode string // "off", "hash" or "email"
	Salt string
}

// Person is the person as the metrics name them: at most one of the two.
type Person struct {
	Hash  string `json:"Hash"` // a hook journals it: the names are that format's
	Email string `json:"Email"`
}

// Of is the person the address names, as the setting allows: nobody
// when off or when no address was given.
func (u MetricsUser) Of(email string) Person {
	email = strings.TrimSpace(email)
	if email == "" {
		return Person{}
	}
	switch u.Mode {
	case "hash":
		sum := sha256.Sum256([]byte(u.Salt + "\x00" + strings.ToLower(email)))
		return Person{Hash: hex.EncodeToString(sum[:])}
	case "email":
		return Person{Email: email}
	}
	return Person{}
}

// metricsUser reads CURSOR_OTEL_METRICS_USER and its salt; hash without
// a salt is a problem (an unsalted hash of an address is the address to
// anyone who guesses it). The salt is never said back.
func (l *loader) metricsUser() MetricsUser {
	u := MetricsUser{Mode: "off", Salt: l.getenv("CURSOR_OTEL_METRICS_USER_SALT")}
	switch text := strings.ToLower(strings.TrimSpace(l.getenv("CURSOR_OTEL_METRICS_USER"))); text {
	case "", "off":
	case "hash":
		if u.Salt == "" {
			l.problems = append(l.problems, errors.New("CURSOR_OTEL_METRICS_USER=hash: set CURSOR_OTEL_METRICS_USER_SALT, the team's secret salt"))
			break
		}
		u.Mode = text
	case "email":
		u.Mode = text
	default:
		l.problems = append(l.problems, fmt.Errorf("CURSOR_OTEL_METRICS_USER=%q: write hash, email or off", text))
	}
	return u
}
