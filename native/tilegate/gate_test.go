package main

// The gateway's parts that need no database: which requests it answers itself, its gzip, its
// cache's bounds, the session window, and the reverse proxy in front of a stand-in web process.
// The whole gateway in front of the real app is test/integration/tilegate.test.ts.

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"sync"
	"testing"
	"time"
)

func testPlan() *Plan {
	return &Plan{
		MaxZoom:         22,
		MaxAgeSeconds:   60,
		SessionCookie:   "cgp_session",
		SessionWindowMs: 30_000,
		Sources: []PlanSource{
			{Name: "gis_terenuri", Minzoom: 10, Maxzoom: 22, Statements: map[string]string{}},
		},
	}
}

func testGate(t *testing.T, upstream string) *gate {
	t.Helper()
	plan := testPlan()
	u, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	g := &gate{
		plan:     plan,
		sources:  indexSources(plan),
		tiles:    newTileCache(100, 1<<20),
		sessions: newSessions(plan.SessionCookie, time.Duration(plan.SessionWindowMs)*time.Millisecond),
		metrics:  &gateMetrics{},
		log:      slog.New(slog.NewTextHandler(io.Discard, nil)),
		upstream: u,
	}
	g.proxy = newProxy(u, g)
	return g
}

func TestTileRequestIsTheWebProcessTileDoor(t *testing.T) {
	g := testGate(t, "http://127.0.0.1:1")
	cases := []struct {
		method, uri, auth string
		want              bool
	}{
		{"GET", "/tiles/gis_terenuri/16/36000/23000", "", true},
		{"GET", "/tiles/gis_terenuri/16/36000/23000.pbf", "", true},
		{"GET", "/tiles/gis_terenuri/16/36000/23000.mvt?v=3", "", true},
		{"HEAD", "/tiles/gis_terenuri/16/36000/23000", "", false},
		{"GET", "/tiles/gis_terenuri/16/36000/23000", "Bearer abc", false},
		{"GET", "/tiles/no_such_source/16/1/1", "", false},
		{"GET", "/tiles/gis_terenuri/16/70000/1", "", false}, // x past 2^16: the web process's 400
		{"GET", "/tiles/gis_terenuri/23/1/1", "", false},     // past the deepest zoom
		{"GET", "/tiles/gis_terenuri/16/1/1/extra", "", false},
		{"GET", "/tiles/gis_terenuri", "", false},
		{"GET", "/api/version", "", false},
	}
	for _, c := range cases {
		r := httptest.NewRequest(c.method, c.uri, nil)
		if c.auth != "" {
			r.Header.Set("Authorization", c.auth)
		}
		if got := g.tileRequest(r) != nil; got != c.want {
			t.Errorf("%s %s (auth %q): answered here %v, want %v", c.method, c.uri, c.auth, got, c.want)
		}
	}
}

func TestCompressIsGzipOfTheTile(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, n := range []int{1, 100, storedBelow - 1, storedBelow, 5000, 70_000} {
		mvt := make([]byte, n)
		for i := range mvt {
			mvt[i] = byte(rng.Intn(16)) // compressible, as an MVT's command runs are
		}
		gz := compress(mvt)
		r, err := gzip.NewReader(bytes.NewReader(gz))
		if err != nil {
			t.Fatalf("%d bytes: not gzip: %v", n, err)
		}
		back, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(back, mvt) {
			t.Fatalf("%d bytes: gunzip gave %d bytes (%v)", n, len(back), err)
		}
		// Under storedBelow: one stored deflate block (BFINAL 1, BTYPE 00) right after the header.
		if stored := gz[10] == 0x01; stored != (n < storedBelow) {
			t.Errorf("%d bytes: stored %v", n, stored)
		}
	}
	if len(compress(nil)) != 0 {
		t.Error("an empty tile compresses to nothing (204)")
	}
}

func TestTileCacheKeepsItsBounds(t *testing.T) {
	c := newTileCache(3, 100)
	for i := range 5 {
		c.set(strconv.Itoa(i), make([]byte, 10))
	}
	if n, b := c.stats(); n != 3 || b != 30 {
		t.Fatalf("entries %d bytes %d, want 3 and 30", n, b)
	}
	if _, ok := c.get("0"); ok {
		t.Error("the oldest entry is gone first")
	}
	c.get("2") // used: kept over 3
	c.set("big", make([]byte, 80))
	if _, ok := c.get("2"); !ok {
		t.Error("the entry used last is kept")
	}
	if _, ok := c.get("3"); ok {
		t.Error("the byte bound evicts the least used")
	}
	c.set("huge", make([]byte, 101))
	if _, ok := c.get("huge"); ok {
		t.Error("a tile larger than the whole cache is not kept")
	}
}

const cookieA = "cgp_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA; theme=dark"

func TestSessionWindow(t *testing.T) {
	s := newSessions("cgp_session", 2*time.Second)
	s.learn(cookieA)
	if ok, _ := s.served(cookieA); ok {
		t.Fatal("nothing is served while the change listener is down")
	}
	s.listening.Store(true)
	s.learn(cookieA)
	if ok, renew := s.served(cookieA); !ok || renew {
		t.Fatalf("served %v renew %v just after the web process served it", ok, renew)
	}
	time.Sleep(1200 * time.Millisecond)
	if ok, renew := s.served(cookieA); !ok || !renew {
		t.Fatalf("past half the window: served %v, renew %v (want both)", ok, renew)
	}
	if _, renew := s.served(cookieA); renew {
		t.Fatal("one renewal at a time")
	}
	s.learn(cookieA) // the renewal's answer
	if _, renew := s.served(cookieA); renew {
		t.Fatal("a renewed window starts over")
	}
	time.Sleep(2200 * time.Millisecond)
	if ok, _ := s.served(cookieA); ok {
		t.Fatal("past the window the web process decides again")
	}
	// A notification names the session id (sha256 of the token): every header holding it goes.
	s.learn(cookieA)
	s.learn("theme=light; " + cookieA[:len("cgp_session=")+43])
	s.forget(s.sessionID(cookieA))
	if ok, _ := s.served(cookieA); ok {
		t.Error("the notified session's header is still served")
	}
	if ok, _ := s.served("theme=light; " + cookieA[:len("cgp_session=")+43]); ok {
		t.Error("another header of the notified session is still served")
	}
	// A header without a token of the issued shape is never learned: no notification could name it.
	s.learn("cgp_session=short")
	if ok, _ := s.served("cgp_session=short"); ok {
		t.Error("a malformed token was learned")
	}
}

func TestSessionsUnderConcurrency(t *testing.T) {
	s := newSessions("cgp_session", time.Second)
	s.listening.Store(true)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 2000 {
				c := "cgp_session=" + string(bytes.Repeat([]byte{byte('A' + (w+i)%26)}, 43))
				s.learn(c)
				s.served(c)
				if i%100 == 0 {
					s.forget(s.sessionID(c))
				}
				if i%500 == 0 {
					s.forgetAll()
				}
			}
		}()
	}
	wg.Wait()
}

func TestProxyPassesEverythingElseThrough(t *testing.T) {
	var seen http.Header
	var host string
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen, host = r.Header.Clone(), r.Host
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusTeapot)
		_, _ = w.Write(body)
	}))
	defer web.Close()
	front := httptest.NewServer(testGate(t, web.URL))
	defer front.Close()

	req, _ := http.NewRequest("POST", front.URL+"/api/anything?x=1", bytes.NewBufferString("the body"))
	req.Host = "geoportal.example"
	req.Header.Set("X-Forwarded-For", "203.0.113.9")
	req.Header.Set("X-Forwarded-Proto", "https")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusTeapot || string(body) != "the body" {
		t.Fatalf("status %d body %q", res.StatusCode, body)
	}
	if host != "geoportal.example" {
		t.Errorf("Host %q reached the web process", host)
	}
	if got := seen.Get("X-Forwarded-For"); got != "203.0.113.9, 127.0.0.1" {
		t.Errorf("X-Forwarded-For %q: the client's claim kept, the client appended", got)
	}
	if got := seen.Get("X-Forwarded-Proto"); got != "https" {
		t.Errorf("X-Forwarded-Proto %q: an outer proxy's is kept", got)
	}
}

func TestWebProcessDownIsTheContractsError(t *testing.T) {
	web := httptest.NewServer(http.NotFoundHandler())
	addr := web.URL
	web.Close() // nothing listens there any more
	front := httptest.NewServer(testGate(t, addr))
	defer front.Close()
	res, err := http.Get(front.URL + "/api/version")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var body map[string]string
	if err := json.NewDecoder(res.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusBadGateway || body["error"] != "upstream_error" || body["message"] == "" {
		t.Fatalf("status %d body %v", res.StatusCode, body)
	}
}

// tileThrough asks a tile with cookieA through a gateway whose web process answers `status`:
// the status the client got, and whether the gateway then serves that cookie itself.
func tileThrough(t *testing.T, status int) (int, bool) {
	t.Helper()
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(status)
	}))
	defer web.Close()
	g := testGate(t, web.URL)
	g.sessions.listening.Store(true)
	front := httptest.NewServer(g)
	defer front.Close()
	req, _ := http.NewRequest("GET", front.URL+"/tiles/gis_terenuri/16/36000/23000", nil)
	req.Header.Set("Cookie", cookieA)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	served, _ := g.sessions.served(cookieA)
	return res.StatusCode, served
}

func TestATileTheWebProcessServedLetsTheNextBeServedHere(t *testing.T) {
	if status, served := tileThrough(t, http.StatusNoContent); status != http.StatusNoContent || !served {
		t.Fatalf("a tile the web process served (%d) did not open the window", status)
	}
	if status, served := tileThrough(t, http.StatusUnauthorized); status != http.StatusUnauthorized || served {
		t.Fatalf("a 401 opened the window (status %d)", status)
	}
}

func TestAClientThatLeavesClosesItsRequestAtTheWebProcess(t *testing.T) {
	started, ended := make(chan struct{}), make(chan struct{})
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-r.Context().Done() // the web process hears its client leave
		close(ended)
	}))
	defer web.Close()
	front := httptest.NewServer(testGate(t, web.URL))
	defer front.Close()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", front.URL+"/api/slow", nil)
	go func() { _, _ = http.DefaultClient.Do(req) }()
	<-started
	cancel()
	select {
	case <-ended:
	case <-time.After(5 * time.Second):
		t.Fatal("the web process still holds the request of a client that left")
	}
}
