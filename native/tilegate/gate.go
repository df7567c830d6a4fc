package main

import (
	"context"
	"crypto/sha1"
	"encoding/base64"
	"io"
	"log/slog"
	"net/http"
	"net/http/httputil"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

type gate struct {
	plan     *Plan
	sources  map[string]*PlanSource
	tiles    *tileCache
	servers  *servers
	sessions *sessions
	metrics  *gateMetrics
	proxy    *httputil.ReverseProxy
	upstream *url.URL
	log      *slog.Logger
	// Epoch ms of the last "web process unreachable" line.
	lastUpstreamLog atomic.Int64
}

func indexSources(p *Plan) map[string]*PlanSource {
	m := make(map[string]*PlanSource, len(p.Sources))
	for i := range p.Sources {
		m[p.Sources[i].Name] = &p.Sources[i]
	}
	return m
}

// tilePath is the web process's (api/routes/tiles.ts TILE_PATH): the same addresses are tiles here.
var tilePath = regexp.MustCompile(`^/tiles/([A-Za-z0-9_]{1,64})/(\d{1,2})/(\d{1,8})/(\d{1,8})(?:\.(?:pbf|mvt))?(?:\?|$)`)

type tileAddr struct {
	source  *PlanSource
	z, x, y int
}

// tileRequest is the address of a request this process may answer itself: a GET of a known
// source's valid tile with a cookie and without an Authorization header (a personal token and the
// wrong-token limit are the web process's). Anything else is nil.
func (g *gate) tileRequest(r *http.Request) *tileAddr {
	if r.Method != http.MethodGet || len(r.Header.Values("Authorization")) > 0 {
		return nil
	}
	m := tilePath.FindStringSubmatch(r.RequestURI)
	if m == nil {
		return nil
	}
	src := g.sources[m[1]]
	if src == nil {
		return nil
	}
	z, _ := strconv.Atoi(m[2])
	x, _ := strconv.Atoi(m[3])
	y, _ := strconv.Atoi(m[4])
	if z > g.plan.MaxZoom || x >= 1<<z || y >= 1<<z {
		return nil // the web process answers 400 with the contract's body
	}
	return &tileAddr{source: src, z: z, x: x, y: y}
}

type learnKey struct{}

func (g *gate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	addr := g.tileRequest(r)
	if addr == nil {
		g.metrics.forwarded.Add(1)
		g.proxy.ServeHTTP(w, r)
		return
	}
	cookie := strings.Join(r.Header.Values("Cookie"), "; ")
	served, renew := false, false
	if cookie != "" {
		served, renew = g.sessions.served(cookie)
	}
	if renew {
		go g.renew(cookie)
	}
	if !served {
		// The web process decides; a tile it serves to this cookie lets the next ones be served here.
		g.metrics.forwarded.Add(1)
		g.proxy.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), learnKey{}, cookie)))
		return
	}
	started := time.Now()
	if !g.serveTile(w, r, addr) {
		// A failed render goes the long way, where the web process answers it with the contract's body.
		g.metrics.forwarded.Add(1)
		g.proxy.ServeHTTP(w, r)
		return
	}
	g.metrics.observe(time.Since(started))
}

// learn: the web process served a tile to this Cookie header, so its session is live now.
func (g *gate) learn(res *http.Response) {
	cookie, ok := res.Request.Context().Value(learnKey{}).(string)
	if !ok || cookie == "" {
		return
	}
	switch res.StatusCode {
	case http.StatusOK, http.StatusNoContent, http.StatusNotModified:
		g.sessions.learn(cookie)
	}
}

// renew asks the web process whether it still serves this Cookie header, through the same door
// as a tile: its tile front door reads the session (touching it, refreshing its access token when
// due) and answers a tile outside its source's zoom range with 204 and nothing rendered, or 401.
func (g *gate) renew(cookie string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, g.upstream.String()+g.plan.ProbePath, nil)
	if err != nil {
		g.sessions.asked(cookie)
		return
	}
	req.Header.Set("Cookie", cookie)
	res, err := g.proxy.Transport.RoundTrip(req)
	if err != nil {
		g.sessions.asked(cookie)
		return
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	g.metrics.renewals.Add(1)
	switch res.StatusCode {
	case http.StatusOK, http.StatusNoContent, http.StatusNotModified:
		g.sessions.learn(cookie)
	default:
		g.sessions.drop(cookie)
	}
}

// etagMemo: the tags of recent cache keys (a key names its version, so an entry is never stale),
// emptied at its bound as the web process's is.
var (
	etagMu   sync.Mutex
	etagMemo = map[string]string{}
)

const etagMemoMax = 50_000

// etagOf is the web process's tileTag: a weak tag of the version key (domain/tiles/mvt.ts).
func etagOf(key string) string {
	etagMu.Lock()
	defer etagMu.Unlock()
	if tag, ok := etagMemo[key]; ok {
		return tag
	}
	sum := sha1.Sum([]byte(key))
	tag := `W/"` + base64.RawURLEncoding.EncodeToString(sum[:])[:22] + `"`
	if len(etagMemo) >= etagMemoMax {
		clear(etagMemo)
	}
	etagMemo[key] = tag
	return tag
}

// etagMatches: If-None-Match against a tag, weakly, as GET compares (domain/tiles/mvt.ts etagMatches).
func etagMatches(inm, tag string) bool {
	if strings.TrimSpace(inm) == "*" {
		return true
	}
	opaque := func(t string) string { return strings.TrimPrefix(strings.TrimSpace(t), "W/") }
	want := opaque(tag)
	for _, t := range strings.Split(inm, ",") {
		if opaque(t) == want {
			return true
		}
	}
	return false
}

var acceptsGzip = regexp.MustCompile(`\bgzip\b`)

// serveTile answers a tile as the web process's sendTile does (304, 204 or the MVT, gzip when
// asked); false, with nothing written, when it could not be rendered.
func (g *gate) serveTile(w http.ResponseWriter, r *http.Request, a *tileAddr) bool {
	ctx := r.Context()
	srv, version, err := g.servers.versionOf(ctx, a.source.Name)
	if err != nil {
		return false
	}
	key := a.source.Name + "/" + strconv.Itoa(a.z) + "/" + strconv.Itoa(a.x) + "/" + strconv.Itoa(a.y) + "@" + version
	etag := etagOf(key)
	h := w.Header()
	h["Cache-Control"] = []string{"private, max-age=" + strconv.Itoa(g.plan.MaxAgeSeconds)}
	h["Vary"] = []string{"Cookie, Accept-Encoding"}
	h["Etag"] = []string{etag}
	if inm := r.Header.Get("If-None-Match"); inm != "" && etagMatches(inm, etag) {
		w.WriteHeader(http.StatusNotModified)
		g.metrics.notModified.Add(1)
		return true
	}
	gz, hit := g.tiles.get(key)
	if hit {
		g.metrics.cacheHits.Add(1)
	} else {
		g.metrics.cacheMisses.Add(1)
		mvt, err := srv.render(ctx, a)
		if err != nil {
			for k := range h {
				delete(h, k)
			}
			if ctx.Err() == nil {
				g.metrics.renderErrors.Add(1)
				g.log.Warn("tile render failed; the web process answers", "source", a.source.Name, "z", a.z, "err", err.Error())
			}
			return ctx.Err() != nil // a client that left is answered by nobody
		}
		gz = compress(mvt)
		g.tiles.set(key, gz)
	}
	if hit {
		h["X-Tile-Cache"] = []string{"hit"}
	} else {
		h["X-Tile-Cache"] = []string{"miss"}
	}
	if len(gz) == 0 {
		w.WriteHeader(http.StatusNoContent)
		return true
	}
	h["Content-Type"] = []string{"application/vnd.mapbox-vector-tile"}
	body := gz
	if acceptsGzip.MatchString(strings.Join(r.Header.Values("Accept-Encoding"), ",")) {
		h["Content-Encoding"] = []string{"gzip"}
	} else {
		plain, err := gunzip(gz)
		if err != nil {
			return false
		}
		body = plain
	}
	h["Content-Length"] = []string{strconv.Itoa(len(body))}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
	return true
}
