package main

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"log/slog"
	"net/http"
	"regexp"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
)

// sessionsMax bounds the cookies remembered (the web process's session cache holds as many).
const sessionsMax = 10_000

// sessions: the Cookie headers the web process served a tile to lately, each trusted for the
// plan's session window from then, keyed by the exact header so that no cookie parsing of ours
// decides anything; and by session id, so a notification drops them.
type sessions struct {
	cookieName string
	ttl        time.Duration
	mu         sync.Mutex
	byCookie   map[string]learned
	byID       map[string][]string
	// Only while the primary's notifications are heard is a learned cookie trusted at all.
	listening atomic.Bool
}

type learned struct {
	until  time.Time
	id     string
	asking bool
}

func newSessions(cookieName string, ttl time.Duration) *sessions {
	return &sessions{cookieName: cookieName, ttl: ttl, byCookie: map[string]learned{}, byID: map[string][]string{}}
}

// sessionToken is the shape of the tokens the web process issues (api/auth/sessionStore.ts).
var sessionToken = regexp.MustCompile(`^[A-Za-z0-9_-]{43}$`)

// sessionID of a Cookie header's session token, as the web process derives it (sessionIdFor).
func (s *sessions) sessionID(cookie string) string {
	req := http.Request{Header: http.Header{"Cookie": {cookie}}}
	c, err := req.Cookie(s.cookieName)
	if err != nil || !sessionToken.MatchString(c.Value) {
		return ""
	}
	sum := sha256.Sum256([]byte(c.Value))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// served: whether this Cookie header's tiles are answered here now, and whether it is time to ask
// the web process again (past half the window, once at a time), so a map in use is never sent
// the long way because its window ran out.
func (s *sessions) served(cookie string) (ok, renew bool) {
	if !s.listening.Load() {
		return false, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	l, found := s.byCookie[cookie]
	now := time.Now()
	if !found || !now.Before(l.until) {
		return false, false
	}
	if l.until.Sub(now) < s.ttl/2 && !l.asking {
		l.asking = true
		s.byCookie[cookie] = l
		return true, true
	}
	return true, false
}

// drop: the web process no longer serves this Cookie header.
func (s *sessions) drop(cookie string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.byCookie, cookie)
}

// asked: a renewal that got no answer (the web process away); the window runs out as it would.
func (s *sessions) asked(cookie string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if l, ok := s.byCookie[cookie]; ok {
		l.asking = false
		s.byCookie[cookie] = l
	}
}

func (s *sessions) learn(cookie string) {
	if !s.listening.Load() {
		return
	}
	id := s.sessionID(cookie)
	if id == "" {
		return // nothing a notification could name: the web process keeps deciding
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.byCookie[cookie]; !ok {
		if len(s.byCookie) >= sessionsMax {
			s.byCookie = map[string]learned{}
			s.byID = map[string][]string{}
		}
		s.byID[id] = append(s.byID[id], cookie)
	}
	s.byCookie[cookie] = learned{until: time.Now().Add(s.ttl), id: id}
}

func (s *sessions) forget(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.byID[id] {
		delete(s.byCookie, c)
	}
	delete(s.byID, id)
}

func (s *sessions) forgetAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.byCookie = map[string]learned{}
	s.byID = map[string][]string{}
}

// follow listens on `app_sessions_changed` (migration 039: every update of a session's data or
// expiry, and every delete) and drops the cookies of the named session. While the connection is
// down nothing is trusted; when it is back, what was learned before is forgotten, as
// notifications sent meanwhile are lost (api/auth/sessionStore.ts followSessionChanges).
func (s *sessions) follow(ctx context.Context, url string, log *slog.Logger) {
	for ctx.Err() == nil {
		err := s.listen(ctx, url)
		s.listening.Store(false)
		s.forgetAll()
		if ctx.Err() != nil {
			return
		}
		log.Warn("session change listener lost; reconnecting", "err", errText(err))
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
	}
}

func (s *sessions) listen(ctx context.Context, url string) error {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "LISTEN app_sessions_changed"); err != nil {
		return err
	}
	s.forgetAll()
	s.listening.Store(true)
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		s.forget(n.Payload)
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
